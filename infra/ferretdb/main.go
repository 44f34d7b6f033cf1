// Command ferretdb-runner serves the MongoDB wire protocol from a local SQLite
// directory by embedding FerretDB v1. We embed the library instead of building
// upstream's cmd/ferretdb because that binary panics without its generated
// version file when installed from the module proxy.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	sqliteDir := flag.String("sqlite-dir", "", "absolute directory holding the SQLite databases (created if missing)")
	flag.Parse()

	if err := run(*listenAddr, *sqliteDir); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb-runner:", err)
		os.Exit(1)
	}
}

func run(listenAddr, sqliteDir string) error {
	if !filepath.IsAbs(sqliteDir) {
		return fmt.Errorf("--sqlite-dir must be an absolute path, got %q", sqliteDir)
	}
	if err := os.MkdirAll(sqliteDir, 0o755); err != nil {
		return err
	}

	// FerretDB logs every unimplemented command at warn level with a full message dump (the Node
	// driver sends endSessions on each close), which would flood the log during tests.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))

	// The trailing slash matters: FerretDB treats the URL as a directory of databases.
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: listenAddr},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + filepath.Clean(sqliteDir) + "/",
	})
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	fmt.Fprintf(os.Stderr, "ferretdb-runner: listening on %s, data in %s\n", listenAddr, sqliteDir)
	return f.Run(ctx)
}
