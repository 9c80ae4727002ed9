package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/entityevents"
	"github.com/lorekeep/lorekeep/shared/entitynotes"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Mount registers every family on api: the local server's whole API.
func Mount(api *httpapi.API, st *store.Store) {
	locations.Register(api, st)
	calendars.Register(api, st)
	entityevents.Register(api, st)
	entitynotes.Register(api, st)
}

func serveCmd(c *cli, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", "127.0.0.1:3000", "listen address")
	if err := parse(c, fs, args); err != nil {
		return err
	}
	st, err := c.store()
	if err != nil {
		return err
	}
	api := httpapi.New(httpapi.OptionsFromEnv(c.getenv, httpapi.BearerAuth(st, time.Now), st))
	Mount(api, st)
	// Listen first: "serving" is printed only once a client can connect.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(c.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	slog.Info("serving", "addr", "http://"+ln.Addr().String())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
