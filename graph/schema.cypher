// Schema for the paperkg Neo4j store: one uniqueness constraint on `id` per node label (the closed
// set in graph/model.py NODE_LABELS). The constraint makes `MERGE (n:Label {id: ...})` safe against
// duplicates and gives every id lookup an index. Statements are split on ';' and run one by one;
// IF NOT EXISTS makes the file safe to run before every save.
CREATE CONSTRAINT paperkg_paper_id IF NOT EXISTS FOR (n:Paper) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_collection_id IF NOT EXISTS FOR (n:Collection) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_method_id IF NOT EXISTS FOR (n:Method) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_model_id IF NOT EXISTS FOR (n:Model) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_dataset_id IF NOT EXISTS FOR (n:Dataset) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_benchmark_id IF NOT EXISTS FOR (n:Benchmark) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_metric_id IF NOT EXISTS FOR (n:Metric) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT paperkg_task_id IF NOT EXISTS FOR (n:Task) REQUIRE n.id IS UNIQUE;
