// Command ferretdb-runner serves the MongoDB wire protocol from a local SQLite directory by
// embedding FerretDB v1. We embed the library instead of building upstream's cmd/ferretdb because
// that binary panics without its generated version file when installed from the module proxy.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"golang.org/x/sync/errgroup"

	"chatplatform.local/ferretdb-runner/wireproxy"
)

func main() {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	sqliteDir := flag.String("sqlite-dir", "", "absolute directory holding the SQLite databases (created if missing)")
	serializeWrites := flag.Bool("serialize-writes", true,
		"run write commands one at a time, so that single-document updates are atomic as in MongoDB")
	synchronous := flag.String("sqlite-synchronous", "normal",
		"SQLite's synchronous setting: normal syncs the write-ahead log at checkpoints (a crash of the "+
			"process loses nothing; a power loss may lose the last commits, as MongoDB's default write concern may), "+
			"full syncs every commit")
	writeLock := flag.String("write-lock", "store",
		"with --serialize-writes, which writes wait for each other: store (one write at a time in the whole "+
			"store) or database (one at a time in each database; measured slower on 2 cores, ADR 0046)")
	statsInterval := flag.Duration("stats-interval", 0,
		"when above 0, print every interval which commands ran on which collections and how long they took")
	slowCommands := flag.Duration("slow-commands", 0,
		"when above 0, print every command that waited for the write lock and ran for this long or longer, "+
			"with the wall-clock millisecond it arrived (to line a client's stall up with the store's; ADR 0155)")
	pprofAddr := flag.String("pprof-addr", "",
		"when set (e.g. 127.0.0.1:6060), serve Go's profiler at http://<addr>/debug/pprof/ to see where the "+
			"runner's CPU goes; off by default, as it exposes the process's internals")
	pragmas := flag.String("sqlite-pragmas", "cache_size(-65536)",
		"more SQLite pragmas for every database's connections, comma-separated as name(integer); the default, "+
			"a page cache of up to 64 MiB a connection (SQLite's own is 2 MiB), took a fifth off the CPU of a write "+
			"into a collection with a long history (ADR 0152); empty for SQLite's defaults")
	writers := flag.String("sqlite-writers", "one",
		"which connections of a database write: one (a connection of its own takes every write, so its page "+
			"cache stays valid; the others only read, ADR 0164) or pool (whichever of FerretDB's pooled "+
			"connections is free, as upstream: each write makes every other connection discard its page cache)")
	readerPragmas := flag.String("sqlite-reader-pragmas", "cache_size(-2000)",
		"with --sqlite-writers one, pragmas for the reading connections alone, in place of --sqlite-pragmas' "+
			"of the same name, comma-separated as name(integer); the default, SQLite's own 2 MiB cache, as a "+
			"reader's cache is discarded after every write (ADR 0164)")
	gcPercent := flag.Int("gc-percent", 400,
		"Go's GC target (GOGC) unless the GOGC variable is set: the heap may grow to this percent over the live "+
			"heap before a collection; 400 cut the runner's CPU per insert command by a fifth for ~10 MB more "+
			"memory (ADR 0098)")
	flag.Parse()

	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(*gcPercent)
	}

	if *writeLock != "database" && *writeLock != "store" {
		fmt.Fprintln(os.Stderr, "ferretdb-runner: --write-lock must be database or store")
		os.Exit(2)
	}
	if *writers != "one" && *writers != "pool" {
		fmt.Fprintln(os.Stderr, "ferretdb-runner: --sqlite-writers must be one or pool")
		os.Exit(2)
	}
	extraPragmas, err := pragmaQuery(*pragmas, "_pragma")
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb-runner: --sqlite-pragmas:", err)
		os.Exit(2)
	}
	if *writers == "one" {
		readerQuery, err := pragmaQuery(*readerPragmas, "_reader_pragma")
		if err != nil {
			fmt.Fprintln(os.Stderr, "ferretdb-runner: --sqlite-reader-pragmas:", err)
			os.Exit(2)
		}
		extraPragmas += writerQuery + readerQuery
	}
	if *synchronous != "normal" && *synchronous != "full" {
		fmt.Fprintln(os.Stderr, "ferretdb-runner: --sqlite-synchronous must be normal or full")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	err = run(ctx, config{
		listenAddr: *listenAddr, sqliteDir: *sqliteDir, serializeWrites: *serializeWrites,
		lockPerDatabase: *writeLock == "database", synchronous: *synchronous, pragmas: extraPragmas,
		statsInterval: *statsInterval, slowCommands: *slowCommands, pprofAddr: *pprofAddr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb-runner:", err)
		os.Exit(1)
	}
}

// config is the runner's command line.
type config struct {
	listenAddr, sqliteDir, synchronous, pprofAddr string
	// pragmas: "&_pragma=…" for each extra SQLite pragma, appended to the databases' URL, and with one
	// writing connection a database writerQuery and "&_reader_pragma=…" for each of the readers' pragmas.
	pragmas                          string
	serializeWrites, lockPerDatabase bool
	statsInterval, slowCommands      time.Duration
}

// run serves until ctx ends.
func run(ctx context.Context, cfg config) error {
	listenAddr, sqliteDir, serializeWrites, synchronous := cfg.listenAddr, cfg.sqliteDir, cfg.serializeWrites, cfg.synchronous
	if !filepath.IsAbs(sqliteDir) {
		return fmt.Errorf("--sqlite-dir must be an absolute path, got %q", sqliteDir)
	}
	if err := os.MkdirAll(sqliteDir, 0o755); err != nil {
		return err
	}

	// FerretDB logs every unimplemented command at warn level with a full message dump (the Node
	// driver sends endSessions on each close), which would flood the log during tests.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))

	if err := dropIDPathIndexes(context.Background(), sqliteDir); err != nil {
		return fmt.Errorf("dropping the old _id path indexes: %w", err)
	}

	listener := ferretdb.ListenerConfig{TCP: listenAddr}
	var front net.Listener
	if serializeWrites {
		// FerretDB itself listens on a private Unix socket; our proxy owns the public address.
		sockDir, err := os.MkdirTemp("", "ferretdb-runner-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(sockDir)
		listener = ferretdb.ListenerConfig{Unix: filepath.Join(sockDir, "wire.sock")}
		if front, err = net.Listen("tcp", listenAddr); err != nil {
			return err
		}
	}

	// The trailing slash matters: FerretDB treats the URL as a directory of databases.
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  listener,
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + filepath.Clean(sqliteDir) + "/?_pragma=synchronous(" + synchronous + ")" + cfg.pragmas,
	})
	if err != nil {
		return err
	}

	fmt.Fprintf(os.Stderr, "ferretdb-runner: listening on %s, data in %s, serialize writes: %t, a write lock per database: %t\n",
		listenAddr, sqliteDir, serializeWrites, cfg.lockPerDatabase)

	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return f.Run(ctx) })
	if cfg.pprofAddr != "" {
		if err := serveProfiler(ctx, g, cfg.pprofAddr); err != nil {
			return err
		}
	}
	if front != nil {
		var stats *wireproxy.Stats
		if cfg.statsInterval > 0 {
			stats = wireproxy.NewStats()
			g.Go(func() error { return reportStats(ctx, stats, cfg.statsInterval) })
		}
		g.Go(func() error {
			var slow *wireproxy.SlowLog
			if cfg.slowCommands > 0 {
				slow = wireproxy.NewSlowLog(os.Stderr, cfg.slowCommands)
			}
			return wireproxy.Serve(ctx, front, listener.Unix, wireproxy.NewWriteLocks(cfg.lockPerDatabase), stats, slow)
		})
	}
	if err = g.Wait(); errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// reportStats prints the proxy's tallies every interval until ctx ends.
func reportStats(ctx context.Context, stats *wireproxy.Stats, interval time.Duration) error {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			stats.Report(os.Stderr, interval)
		}
	}
}

// serveProfiler serves Go's pprof handlers on their own listener and mux (never the default mux, so
// nothing else can add handlers to it) until ctx ends.
func serveProfiler(ctx context.Context, g *errgroup.Group, addr string) error {
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--pprof-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	server := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "ferretdb-runner: profiler at http://%s/debug/pprof/\n", listener.Addr())
	g.Go(func() error {
		if err := server.Serve(listener); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	g.Go(func() error {
		<-ctx.Done()
		return server.Close()
	})
	return nil
}

// writerQuery asks our FerretDB build (patches/0006, ADR 0164) for one writing connection a database.
const writerQuery = "&_writer=1"

// pragmaQuery turns "cache_size(-65536),mmap_size(268435456)" into the URL's "&<param>=…" parameters
// (param _pragma, or _reader_pragma for the reading connections alone).
// Only a name and a signed integer are accepted: the value reaches every connection's URL.
func pragmaQuery(list, param string) (string, error) {
	var query strings.Builder
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !pragmaPattern.MatchString(item) {
			return "", fmt.Errorf("%q is not name(integer)", item)
		}
		query.WriteString("&" + param + "=" + item)
	}
	return query.String(), nil
}

var pragmaPattern = regexp.MustCompile(`^[a-z_]+\(-?[0-9]+\)$`)
