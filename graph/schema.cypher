// Schema for the paperkg Neo4j store. Statements are split on ';' and run one by one (schema changes
// need transactions of their own); IF NOT EXISTS makes the file safe to run before every save, and
// `Neo4jStore.ensure_schema` then waits (db.awaitIndexes) until every index is online.
//
// One uniqueness constraint on `id` per node label (the closed set in graph/model.py NODE_LABELS):
// it makes `MERGE (n:Label {id: ...})` safe against duplicates and gives every id lookup an index.
CREATE CONSTRAINT paperkg_paper_id IF NOT EXISTS FOR (n:Paper) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_collection_id IF NOT EXISTS FOR (n:Collection) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_method_id IF NOT EXISTS FOR (n:Method) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_model_id IF NOT EXISTS FOR (n:Model) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_dataset_id IF NOT EXISTS FOR (n:Dataset) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_benchmark_id IF NOT EXISTS FOR (n:Benchmark) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_metric_id IF NOT EXISTS FOR (n:Metric) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_task_id IF NOT EXISTS FOR (n:Task) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_result_id IF NOT EXISTS FOR (n:Result) REQUIRE n.id IS UNIQUE;
// Every entity also has the label `Entity`; entity ids carry their type (`method:grpo`), so they are
// unique across the entity labels too: one lookup by id whatever the type (the figures, a delta's
// renamed entities).
CREATE CONSTRAINT paperkg_entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE;
// Internal nodes, never connected to the graph: the save marker and the build lease (`PaperkgMeta`,
// ids 'graph' and 'lease': MERGE on a constrained id gives two builds starting at once one node),
// and the precomputed figures of introduced_in (`PaperkgFigures`, one per collection, keyed by its
// id in `of`) and cooccurring (`PaperkgCo`, one per kept co-mention: entity `of`, entity `other`;
// its other properties named `co_*`, so user Cypher filtering any node on `name` or `type` never
// meets one).
CREATE CONSTRAINT paperkg_meta_id IF NOT EXISTS FOR (n:PaperkgMeta) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_figures_of IF NOT EXISTS FOR (n:PaperkgFigures) REQUIRE n.of IS UNIQUE;
// A co-mention entry by its pair (a delta reads and changes the entries of the pairs it touches),
// and an entity's entries of one type in count order (cooccurring's rows, a type's size and its
// last kept entry when a delta decides what enters a cut list): range indexes, seeked with every
// property given (`IS NOT NULL` for the ones a statement does not fix).
CREATE RANGE INDEX paperkg_co_pair IF NOT EXISTS FOR (n:PaperkgCo) ON (n.of, n.other);
CREATE RANGE INDEX paperkg_co_rank IF NOT EXISTS FOR (n:PaperkgCo) ON (n.of, n.co_type, n.co_papers);
// An entity's entries in count order whatever their type (cooccurring without a type filter).
CREATE RANGE INDEX paperkg_co_top IF NOT EXISTS FOR (n:PaperkgCo) ON (n.of, n.co_papers);
// Entity lookup by name: `$key IN e.keys` cannot use a range index (Neo4j indexes no list elements
// for equality), so every catalog query that takes an entity name scanned all entity nodes. A
// full-text index does index each element of a LIST<STRING> property as its own value; the keyword
// analyzer keeps each key one exact term (no tokenising, no lowercasing: keys are already compact
// and casefolded). The catalog queries it with `db.index.fulltext.queryNodes('paperkg_entity_keys',
// $name_query)` (an exact quoted term, see queries/params.py) and re-check `$name_key IN e.keys`.
// Lucene cannot hold a term over 32,766 UTF-8 bytes, and Neo4j 5.26 fails the whole database (not
// just the transaction) when one is committed, so `Neo4jStore.save` refuses such keys and ids first.
CREATE FULLTEXT INDEX paperkg_entity_keys IF NOT EXISTS
FOR (n:Method|Model|Dataset|Benchmark|Metric|Task) ON EACH [n.keys]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword'}};
// Entity search by a fragment of a name (`queries/entity_search.cypher`: `e.keys_text CONTAINS
// $q_key`): a TEXT index, whose default provider in Neo4j 5 (`text-2.0`) indexes trigrams, answers
// CONTAINS from the posting lists of the fragment's trigrams. The full-text index above answered it
// only with a leading wildcard (`*accu*`), which walks the term dictionary of every key: ~40 ms at
// 550k entities whatever the fragment. `keys_text` is the entity's keys joined by spaces, a property
// only the Neo4j store writes (graph/neo4j_cypher.py STORE_ONLY_PROPS); one index over `Entity`.
CREATE TEXT INDEX paperkg_entity_keys_text IF NOT EXISTS FOR (n:Entity) ON (n.keys_text);
// Paper lookup by a merged record id (`$id IN p.ids`, for an id that is not a paper's own `id`):
// the same element-wise exact index, so an unknown id no longer costs a scan of every paper.
CREATE FULLTEXT INDEX paperkg_paper_ids IF NOT EXISTS
FOR (n:Paper) ON EACH [n.ids]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword'}};
// Most-mentioned entities of a type (`queries/top_entities.cypher`): a range index on `paper_count`
// per entity label lets the query read the label's entities in descending paper_count order and
// stop after `limit` (the planner's index-backed ORDER BY), instead of sorting all of them.
CREATE RANGE INDEX paperkg_method_paper_count IF NOT EXISTS FOR (n:Method) ON (n.paper_count);
CREATE RANGE INDEX paperkg_model_paper_count IF NOT EXISTS FOR (n:Model) ON (n.paper_count);
CREATE RANGE INDEX paperkg_dataset_paper_count IF NOT EXISTS FOR (n:Dataset) ON (n.paper_count);
CREATE RANGE INDEX paperkg_benchmark_paper_count IF NOT EXISTS FOR (n:Benchmark) ON (n.paper_count);
CREATE RANGE INDEX paperkg_metric_paper_count IF NOT EXISTS FOR (n:Metric) ON (n.paper_count);
CREATE RANGE INDEX paperkg_task_paper_count IF NOT EXISTS FOR (n:Task) ON (n.paper_count);
// The same over every entity (`queries/trending.cypher` reads the 2,000 with most papers, any type).
CREATE RANGE INDEX paperkg_entity_paper_count IF NOT EXISTS FOR (n:Entity) ON (n.paper_count);
// Papers by year (`queries/trending.cypher`): the latest year is the first entry of the index in
// descending order, and a window of years is a range seek, instead of reading every Paper's year.
CREATE RANGE INDEX paperkg_paper_year IF NOT EXISTS FOR (n:Paper) ON (n.year);
// The models of a family (`queries/family.cypher`): a family is usually no entity of its own, so it
// is found by the `family_key` every Model carries (`compact_key` of its family), an equality seek.
CREATE RANGE INDEX paperkg_model_family_key IF NOT EXISTS FOR (n:Model) ON (n.family_key);
