// Command lorekeep serves every family locally with the same handlers as the Lambdas, and
// administers users, campaigns, memberships and tokens. Each admin command prints one JSON
// object on stdout. Configuration: TABLE_NAME, DYNAMODB_ENDPOINT, AWS_REGION, RATE_LIMIT.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/entityevents"
	"github.com/lorekeep/lorekeep/shared/entitynotes"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/store"
)

const usage = `usage:
  lorekeep serve [--addr 127.0.0.1:3000]
  lorekeep init
  lorekeep campaign create --name NAME --owner USER [--public] [--boost none|boosted|superboosted]
  lorekeep member add --campaign ID --user USER --role admin|member|viewer
  lorekeep token create --user USER [--expires 720h]
  lorekeep token revoke --token TOKEN
  lorekeep migrate                       # rewrite the table to this version's key layout
  lorekeep demo`

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "lorekeep:", err)
		os.Exit(1)
	}
}

// Mount registers every family on api: the local server's whole API.
func Mount(api *httpapi.API, st *store.Store) {
	locations.Register(api, st)
	calendars.Register(api, st)
	entityevents.Register(api, st)
	entitynotes.Register(api, st)
	entities.Register(api, st)
}

func run(ctx context.Context, args []string, out io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	cfg := store.ConfigFromEnv(getenv)
	st, err := store.Open(ctx, cfg)
	if err != nil {
		return err
	}
	cmd := args[0]
	if len(args) > 1 && (cmd == "campaign" || cmd == "member" || cmd == "token") {
		cmd += " " + args[1]
		args = args[1:]
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:3000", "listen address")
	name := fs.String("name", "", "campaign name")
	owner := fs.String("owner", "", "owner user name")
	public := fs.Bool("public", false, "public campaign")
	boost := fs.String("boost", "none", "boost level")
	campaign := fs.Int64("campaign", 0, "campaign id")
	user := fs.String("user", "", "user name")
	role := fs.String("role", "", "role")
	expires := fs.Duration("expires", 0, "token lifetime (0: never)")
	token := fs.String("token", "", "token")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%s: %v\n%s", cmd, err, usage)
	}
	emit := func(v any) error { return json.NewEncoder(out).Encode(v) }

	switch cmd {
	case "serve":
		return serve(ctx, *addr, st, getenv)
	case "init":
		created, err := store.CreateTable(ctx, st.Client(), cfg.TableName)
		if err != nil {
			return err
		}
		return emit(map[string]any{"table": cfg.TableName, "created": created})
	case "campaign create":
		b, ok := domain.ParseBoost(*boost)
		if *name == "" || *owner == "" || !ok {
			return errors.New(usage)
		}
		u, err := st.EnsureUser(ctx, *owner)
		if err != nil {
			return err
		}
		c, err := st.CreateCampaign(ctx, domain.Campaign{Name: *name, OwnerID: u.ID, IsPublic: *public, Boost: b})
		if err != nil {
			return err
		}
		tok, err := issueToken(ctx, st, u.ID, *expires)
		if err != nil {
			return err
		}
		return emit(map[string]any{"campaign_id": c.ID, "user_id": u.ID, "token": tok})
	case "member add":
		r, ok := domain.ParseRole(*role)
		if *campaign < 1 || *user == "" || !ok {
			return errors.New(usage)
		}
		u, err := st.EnsureUser(ctx, *user)
		if err != nil {
			return err
		}
		if err := st.SetMember(ctx, domain.Membership{CampaignID: *campaign, UserID: u.ID, Role: r}); err != nil {
			return fmt.Errorf("campaign %d: %w", *campaign, err)
		}
		tok, err := issueToken(ctx, st, u.ID, *expires)
		if err != nil {
			return err
		}
		return emit(map[string]any{"campaign_id": *campaign, "user_id": u.ID, "role": r, "token": tok})
	case "token create":
		if *user == "" {
			return errors.New(usage)
		}
		u, err := st.EnsureUser(ctx, *user)
		if err != nil {
			return err
		}
		tok, err := issueToken(ctx, st, u.ID, *expires)
		if err != nil {
			return err
		}
		return emit(map[string]any{"user_id": u.ID, "token": tok})
	case "token revoke":
		if *token == "" {
			return errors.New(usage)
		}
		if err := st.RevokeToken(ctx, domain.HashToken(*token)); err != nil {
			return fmt.Errorf("revoke: %w", err)
		}
		return emit(map[string]any{"revoked": true})
	case "migrate":
		return migrateTable(ctx, st, out, os.Stderr)
	case "demo":
		return demo(ctx, st, cfg, emit)
	}
	return errors.New(usage)
}

// demo ensures the table, a "demo" user and its campaign, and prints a fresh admin token.
func demo(ctx context.Context, st *store.Store, cfg store.Config, emit func(any) error) error {
	if _, err := store.CreateTable(ctx, st.Client(), cfg.TableName); err != nil {
		return err
	}
	u, err := st.EnsureUser(ctx, "demo")
	if err != nil {
		return err
	}
	ids, err := st.UserCampaigns(ctx, u.ID)
	if err != nil {
		return err
	}
	var cid int64
	if len(ids) > 0 {
		cid = ids[0]
	} else {
		c, err := st.CreateCampaign(ctx, domain.Campaign{Name: "Demo campaign", OwnerID: u.ID, Boost: domain.BoostSuperboosted})
		if err != nil {
			return err
		}
		cid = c.ID
	}
	tok, err := issueToken(ctx, st, u.ID, 0)
	if err != nil {
		return err
	}
	return emit(map[string]any{"campaign_id": cid, "user_id": u.ID, "token": tok})
}

func issueToken(ctx context.Context, st *store.Store, uid int64, ttl time.Duration) (string, error) {
	raw, t, err := domain.NewToken(uid, ttl, time.Now())
	if err != nil {
		return "", err
	}
	return raw, st.PutToken(ctx, t)
}

func serve(ctx context.Context, addr string, st *store.Store, getenv func(string) string) error {
	api := httpapi.New(httpapi.OptionsFromEnv(getenv, httpapi.BearerAuth(st, time.Now), st))
	Mount(api, st)
	srv := &http.Server{Addr: addr, Handler: api, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	slog.Info("serving", "addr", "http://"+addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
