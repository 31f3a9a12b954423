package paperkg.testengine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.neo4j.cli.AdminTool;
import org.neo4j.cli.ExecutionContext;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Embedded Neo4j (Community) with a Bolt connector, for the paperkg test suite.
 *
 * <p>Listens on 127.0.0.1:${NEO4J_PORT:-7687}, no TLS, no auth unless {@code NEO4J_AUTH_PASSWORD}
 * is set (then user {@code neo4j} has that password: for tests of wrong credentials against a real
 * server); data lives in a fresh temp
 * directory that is deleted on exit. Prints {@code HOME <dir>} and then
 * {@code READY bolt://127.0.0.1:PORT} on stdout once the default database answers a query.
 * SIGTERM (or SIGINT) shuts it down cleanly through a shutdown hook.
 *
 * <p>{@code Launcher import DIR}: first loads DIR (written by {@code paperkg export neo4j-import})
 * into the fresh database with Neo4j's own importer ({@code neo4j-admin database import full} with
 * the arguments of {@code DIR/import.args}, file names resolved against DIR), starts the engine on
 * it, then runs {@code DIR/schema.cypher} statement by statement, as a user would after an import.
 */
public final class Launcher {

    private Launcher() {}

    public static void main(String[] args) {
        int port = parsePort(System.getenv("NEO4J_PORT"));
        String password = System.getenv("NEO4J_AUTH_PASSWORD");
        boolean auth = password != null && !password.isEmpty();
        Path home;
        try {
            home = Files.createTempDirectory("paperkg-neo4j-");
        } catch (IOException e) {
            System.err.println("FAILED cannot create temp dir: " + e);
            System.exit(1);
            return;
        }
        System.out.println("HOME " + home);
        System.out.flush();

        Path importDir = null;
        if (args.length == 2 && args[0].equals("import")) {
            importDir = Path.of(args[1]).toAbsolutePath();
            try {
                runImport(home, importDir);
            } catch (IOException | RuntimeException e) {
                System.err.println("FAILED import of " + importDir + ": " + e);
                e.printStackTrace(System.err);
                deleteTree(home);
                System.exit(1);
                return;
            }
        } else if (args.length != 0) {
            System.err.println("FAILED usage: Launcher [import DIR]");
            deleteTree(home);
            System.exit(2);
            return;
        }

        DatabaseManagementService dbms;
        try {
            dbms = new DatabaseManagementServiceBuilder(home)
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                    .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                    .setConfig(GraphDatabaseSettings.auth_enabled, auth)
                    .setConfig(GraphDatabaseSettings.pagecache_memory,
                            ByteUnit.mebiBytes(parseMebibytes(System.getenv("NEO4J_PAGECACHE_MB"), 256)))
                    // Bound every transaction's memory, as a deployment should (README, "Neo4j"):
                    // a runaway query fails with MemoryPoolOutOfMemoryError instead of taking the
                    // heap (-Xmx1g) and the server down. paperkg's own write batches stay far below.
                    .setConfig(GraphDatabaseSettings.memory_transaction_max_size, ByteUnit.mebiBytes(256))
                    .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                    .setConfig(GraphDatabaseSettings.udc_enabled, false)
                    // Netty's default 5 s quiet period (boss + worker groups) makes every stop
                    // take ~12 s; a throwaway test engine needs no grace period.
                    .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                    .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(5))
                    .build();
        } catch (RuntimeException e) {
            System.err.println("FAILED to start Neo4j: " + e);
            e.printStackTrace(System.err);
            deleteTree(home);
            System.exit(1);
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                dbms.shutdown();
            } catch (RuntimeException e) {
                System.err.println("shutdown error: " + e);
            } finally {
                deleteTree(home);
                stopped.countDown();
            }
        }, "paperkg-neo4j-shutdown"));

        try {
            dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");
        } catch (RuntimeException e) {
            System.err.println("FAILED smoke query on default database: " + e);
            e.printStackTrace(System.err);
            System.exit(1); // runs the shutdown hook, which removes the temp dir
            return;
        }

        if (auth) {
            try {
                // Embedded transactions bypass auth; the initial password must be replaced to log in.
                dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
                        "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                        java.util.Map.of("password", password));
            } catch (RuntimeException e) {
                System.err.println("FAILED to set the neo4j user's password: " + e);
                System.exit(1);
                return;
            }
        }

        if (importDir != null) {
            try {
                runSchema(dbms, importDir.resolve("schema.cypher"));
            } catch (IOException | RuntimeException e) {
                System.err.println("FAILED schema statements of " + importDir + ": " + e);
                e.printStackTrace(System.err);
                System.exit(1);
                return;
            }
        }

        System.out.println("READY bolt://127.0.0.1:" + port);
        System.out.flush();

        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** neo4j-admin database import full, in process, into the home the engine then starts on. */
    private static void runImport(Path home, Path dir) throws IOException {
        // The database name first: --nodes/--relationships take several files each.
        List<String> argv = new ArrayList<>(List.of("database", "import", "full",
                GraphDatabaseSettings.DEFAULT_DATABASE_NAME));
        for (String line : Files.readAllLines(dir.resolve("import.args"), StandardCharsets.UTF_8)) {
            line = line.strip();
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (line.startsWith("--nodes=") || line.startsWith("--relationships=")) {
                line = line.substring(0, eq + 1) + dir.resolve(line.substring(eq + 1));
            }
            argv.add(line);
        }
        argv.add("--report-file=" + home.resolve("import.report"));   // not into the caller's cwd
        Path conf = Files.createDirectories(home.resolve("conf"));
        System.out.println("IMPORT " + String.join(" ", argv));
        System.out.flush();
        long started = System.nanoTime();
        int code = AdminTool.execute(new ExecutionContext(home, conf), argv.toArray(new String[0]));
        if (code != 0) {
            throw new IllegalStateException("neo4j-admin database import exited with " + code);
        }
        // Read by benchmarks/neo4j_load.py (the importer's own time, without JVM and engine start).
        System.out.println("IMPORTED in " + (System.nanoTime() - started) / 1_000_000 + " ms");
        System.out.flush();
    }

    /** The statements of schema.cypher (split on ';', comment lines dropped), one transaction each. */
    private static void runSchema(DatabaseManagementService dbms, Path file) throws IOException {
        StringBuilder text = new StringBuilder();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.strip().startsWith("//")) {
                text.append(line).append('\n');
            }
        }
        for (String statement : text.toString().split(";")) {
            if (!statement.isBlank()) {
                dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally(statement);
            }
        }
    }

    /** A size in MiB from the environment (a benchmark's graph outgrows the tests' 256 MiB page cache). */
    private static long parseMebibytes(String value, long fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            long mebibytes = Long.parseLong(value.trim());
            if (mebibytes < 8) {
                throw new NumberFormatException("below 8");
            }
            return mebibytes;
        } catch (NumberFormatException e) {
            System.err.println("FAILED invalid NEO4J_PAGECACHE_MB '" + value + "': " + e.getMessage());
            System.exit(2);
            return fallback;
        }
    }

    private static int parsePort(String value) {
        if (value == null || value.isBlank()) {
            return 7687;
        }
        try {
            int port = Integer.parseInt(value.trim());
            if (port < 1 || port > 65535) {
                throw new NumberFormatException("out of range");
            }
            return port;
        } catch (NumberFormatException e) {
            System.err.println("FAILED invalid NEO4J_PORT '" + value + "': " + e.getMessage());
            System.exit(2);
            return -1;
        }
    }

    private static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            System.err.println("could not delete " + root + ": " + e);
        }
    }
}
