// Import a GraphML or GEXF file with Gephi's own importer (gephi-toolkit 0.10.1) and its default
// options, and print what Gephi kept as one JSON object on stdout:
//   {"nodes": N, "edges": E, "dynamic": bool, "edge_kinds": {"MENTIONS": n, ...},
//    "first": {"<node id>": first time or null, ...}, "issues": ["..."]}
// `first` is the lowest bound of each node's time intervals (or timestamps): its first year in a
// dynamic GEXF. Used by tests/graph/test_gephi.py; compiled and run with javac/java against the
// single `gephi-toolkit-0.10.1-all.jar`.
import java.io.File;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.gephi.graph.api.Edge;
import org.gephi.graph.api.Graph;
import org.gephi.graph.api.GraphController;
import org.gephi.graph.api.GraphModel;
import org.gephi.graph.api.Interval;
import org.gephi.graph.api.Node;
import org.gephi.graph.api.TimeRepresentation;
import org.gephi.io.importer.api.Container;
import org.gephi.io.importer.api.ImportController;
import org.gephi.io.importer.api.Issue;
import org.gephi.io.processor.plugin.DefaultProcessor;
import org.gephi.project.api.ProjectController;
import org.gephi.project.api.Workspace;
import org.openide.util.Lookup;

public final class GephiImport {
    private GephiImport() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: GephiImport FILE.graphml|FILE.gexf");
            System.exit(2);
        }
        ProjectController projects = Lookup.getDefault().lookup(ProjectController.class);
        projects.newProject();
        Workspace workspace = projects.getCurrentWorkspace();
        ImportController importer = Lookup.getDefault().lookup(ImportController.class);
        Container container = importer.importFile(new File(args[0]));
        if (container == null) {
            System.err.println("Gephi could not import " + args[0]);
            System.exit(1);
        }
        StringBuilder issues = new StringBuilder();
        for (Iterator<Issue> it = container.getReport().getIssues(100); it.hasNext(); ) {
            Issue issue = it.next();
            if (issues.length() > 0) {
                issues.append(", ");
            }
            issues.append(quote(issue.getLevel() + ": " + issue.getMessage()));
        }
        importer.process(container, new DefaultProcessor(), workspace);
        GraphModel model = Lookup.getDefault().lookup(GraphController.class).getGraphModel(workspace);
        Graph graph = model.getGraph();

        Map<String, Integer> kinds = new TreeMap<>();
        for (Edge edge : graph.getEdges()) {
            Object label = model.getEdgeTypeLabel(edge.getType());
            kinds.merge(String.valueOf(label), 1, Integer::sum);
        }
        boolean intervals = model.getConfiguration().getTimeRepresentation() == TimeRepresentation.INTERVAL;
        StringBuilder first = new StringBuilder();
        for (Node node : graph.getNodes()) {
            if (first.length() > 0) {
                first.append(", ");
            }
            first.append(quote(String.valueOf(node.getId()))).append(": ").append(firstTime(node, intervals));
        }
        StringBuilder kindJson = new StringBuilder();
        for (Map.Entry<String, Integer> kind : kinds.entrySet()) {
            if (kindJson.length() > 0) {
                kindJson.append(", ");
            }
            kindJson.append(quote(kind.getKey())).append(": ").append(kind.getValue());
        }
        System.out.println("{\"nodes\": " + graph.getNodeCount() + ", \"edges\": " + graph.getEdgeCount()
                + ", \"dynamic\": " + model.isDynamic() + ", \"edge_kinds\": {" + kindJson
                + "}, \"first\": {" + first + "}, \"issues\": [" + issues + "]}");
        System.exit(0);
    }

    private static String firstTime(Node node, boolean intervals) {
        double low = Double.POSITIVE_INFINITY;
        if (intervals) {
            for (Interval interval : node.getIntervals()) {
                low = Math.min(low, interval.getLow());
            }
        } else {
            for (double stamp : node.getTimestamps()) {
                low = Math.min(low, stamp);
            }
        }
        return Double.isInfinite(low) ? "null" : String.format(Locale.ROOT, "%s", low);
    }

    private static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
