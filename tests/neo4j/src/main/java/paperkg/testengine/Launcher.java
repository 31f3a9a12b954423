package paperkg.testengine;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

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
 * <p>Listens on 127.0.0.1:${NEO4J_PORT:-7687}, no auth, no TLS; data lives in a fresh temp
 * directory that is deleted on exit. Prints {@code HOME <dir>} and then
 * {@code READY bolt://127.0.0.1:PORT} on stdout once the default database answers a query.
 * SIGTERM (or SIGINT) shuts it down cleanly through a shutdown hook.
 */
public final class Launcher {

    private Launcher() {}

    public static void main(String[] args) {
        int port = parsePort(System.getenv("NEO4J_PORT"));
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

        DatabaseManagementService dbms;
        try {
            dbms = new DatabaseManagementServiceBuilder(home)
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                    .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                    .setConfig(GraphDatabaseSettings.auth_enabled, false)
                    .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(256))
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

        System.out.println("READY bolt://127.0.0.1:" + port);
        System.out.flush();

        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
