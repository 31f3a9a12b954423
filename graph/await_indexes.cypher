// Wait until every index (and constraint) is online; the timeout is a parameter so a test can
// shorten it. Fails with a ClientError when it times out or an index failed to populate.
CALL db.awaitIndexes($timeout)
