// Command lorekeep serves every family locally with the same handlers as the Lambdas, and
// administers users, campaigns, memberships and tokens. Each admin command prints one JSON
// object on stdout. Configuration: TABLE_NAME, DYNAMODB_ENDPOINT, AWS_REGION, RATE_LIMIT,
// REQUEST_TIMEOUT.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/awsdb"
	"github.com/lorekeep/lorekeep/shared/sweeper"
	"github.com/lorekeep/lorekeep/shared/token"
)

// command is one subcommand: its usage line, and run, which defines its flags on fs, parses
// args with it and does the work.
type command struct {
	name  string
	usage string
	run   func(c *cli, fs *flag.FlagSet, args []string) error
}

var commands = []command{
	{"serve", "serve [--addr 127.0.0.1:3000] [--docs DIR] [--sweep-every 1m] [--sweep-older-than 1m]", serveCmd},
	{"init", "init", initCmd},
	{"campaign create", "campaign create --name NAME --owner USER [--public] [--boost none|boosted|superboosted] [--locale en] [--entry HTML] [--image-url URL]", campaignCreate},
	{"member add", "member add --campaign ID --user USER --role admin|member|viewer [--expires 720h]", memberAdd},
	{"token create", "token create --user USER [--expires 720h] [--field-set 2022]", tokenCreate},
	{"token revoke", "token revoke --token TOKEN", tokenRevoke},
	{"migrate", "migrate [--images 25]    # rewrite the table to this version's key layout; fetch old image_urls into the bucket", migrateCmd},
	{"sweep", "sweep [--older-than 1m]   # finish the deletes left pending", sweepCmd},
	{"demo", "demo", demoCmd},
	{"s3", "s3 --dir DIR [--addr 127.0.0.1:9000]   # a local S3-compatible server for the images", s3Cmd},
	{"sqs", "sqs [--addr 127.0.0.1:9324]   # a local SQS-compatible server for the webhooks' delivery queue", sqsCmd},
}

func usage() string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, c := range commands {
		b.WriteString("  lorekeep " + c.usage + "\n")
	}
	b.WriteString("\nConfiguration: TABLE_NAME (default lorekeep), DYNAMODB_ENDPOINT (unset: real AWS), AWS_REGION;\n")
	b.WriteString("images: S3_ENDPOINT and IMAGE_BUCKET (the bucket), IMAGE_BASE_URL (where readers fetch them).\n")
	b.WriteString("Run `lorekeep COMMAND -h` for a command's flags.\n")
	return b.String()
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	os.Exit(exitCode(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv), os.Stderr))
}

// exitCode reports err: 0 for success and help, 2 for usage mistakes, 1 for failures.
func exitCode(err error, stderr io.Writer) int {
	var ue usageError
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "lorekeep:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "lorekeep:", err)
		return 1
	}
}

// cli is what a command runs with; the store is opened only by commands that use it.
type cli struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	cfg    store.Config
	st     *store.Store
}

// store opens the table. Against real AWS (no DYNAMODB_ENDPOINT) the admin command uses the
// SDK's whole credential chain (profiles, SSO, roles), which the Lambdas do without.
func (c *cli) store() (*store.Store, error) {
	if c.st != nil {
		return c.st, nil
	}
	if c.cfg.Endpoint != "" {
		st, err := kinds.Open(c.ctx, c.cfg)
		c.st = st
		return st, err
	}
	var opts []func(*config.LoadOptions) error
	if c.cfg.Region != "" {
		opts = append(opts, config.WithRegion(c.cfg.Region))
	}
	cfg, err := config.LoadDefaultConfig(c.ctx, opts...)
	if err != nil {
		return nil, err
	}
	awsdb.Apply(&cfg)
	c.st = store.New(cfg, c.cfg.TableName)
	return c.st, nil
}

// user opens the table and ensures the user named (a new name creates it).
func (c *cli) user(name string) (*store.Store, domain.User, error) {
	st, err := c.store()
	if err != nil {
		return nil, domain.User{}, err
	}
	u, err := campstore.New(st).EnsureUser(c.ctx, name)
	return st, u, err
}

func (c *cli) emit(v any) error { return json.NewEncoder(c.stdout).Encode(v) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return usageError{"no command"}
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage())
		return nil
	}
	for _, cmd := range commands {
		words := strings.Fields(cmd.name)
		if len(args) < len(words) || strings.Join(args[:len(words)], " ") != cmd.name {
			continue
		}
		fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
		fs.SetOutput(stderr)
		fs.Usage = func() {
			out := fs.Output()
			fmt.Fprintln(out, "usage: lorekeep "+cmd.usage)
			fs.PrintDefaults()
		}
		c := &cli{ctx: ctx, stdout: stdout, stderr: stderr, getenv: getenv, cfg: store.ConfigFromEnv(getenv)}
		return cmd.run(c, fs, args[len(words):])
	}
	fmt.Fprint(stderr, usage())
	return usagef("unknown command %q", strings.Join(args[:min(2, len(args))], " "))
}

// parse parses args; -h prints the command's usage on stdout. A mistake names the flag.
func parse(c *cli, fs *flag.FlagSet, args []string) error {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			fs.SetOutput(c.stdout)
			fs.Usage()
			return flag.ErrHelp
		}
	}
	fs.SetOutput(io.Discard) // the error names the flag; the caller prints it once
	if err := fs.Parse(args); err != nil {
		return usagef("%s: %v (see lorekeep %s -h)", fs.Name(), err, fs.Name())
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

func required(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if f := fs.Lookup(n); f != nil && (f.Value.String() == "" || f.Value.String() == "0") {
			return usagef("%s: --%s is required", fs.Name(), n)
		}
	}
	return nil
}

func initCmd(c *cli, fs *flag.FlagSet, args []string) error {
	if err := parse(c, fs, args); err != nil {
		return err
	}
	st, err := c.store()
	if err != nil {
		return err
	}
	created, err := store.CreateTable(c.ctx, st.Client(), c.cfg.TableName)
	if err != nil {
		return err
	}
	if err := store.EnsureTTL(c.ctx, st.Client(), c.cfg.TableName); err != nil {
		return err
	}
	return c.emit(map[string]any{"table": c.cfg.TableName, "created": created})
}

func campaignCreate(c *cli, fs *flag.FlagSet, args []string) error {
	name := fs.String("name", "", "campaign name")
	owner := fs.String("owner", "", "owner's user name (a new name creates the user)")
	public := fs.Bool("public", false, "a public campaign")
	boost := fs.String("boost", "none", "boost level: none, boosted or superboosted")
	locale := fs.String("locale", "en", "the campaign's language (Kanka's locale)")
	entry := fs.String("entry", "", "the campaign's description (HTML, sanitised)")
	imageURL := fs.String("image-url", "", "URL of the campaign's image")
	expires := fs.Duration("expires", 0, "lifetime of the owner's token (0: no expiry)")
	if err := parse(c, fs, args); err != nil {
		return err
	}
	if err := required(fs, "name", "owner"); err != nil {
		return err
	}
	b, ok := domain.ParseBoost(*boost)
	if !ok {
		return usagef("%s: --boost must be none, boosted or superboosted", fs.Name())
	}
	st, u, err := c.user(*owner)
	if err != nil {
		return err
	}
	cp, err := campstore.New(st).CreateCampaign(c.ctx, domain.Campaign{Name: *name, OwnerID: u.ID, IsPublic: *public, Boost: b, Locale: *locale,
		Entry: *entry, ImageURL: *imageURL})
	if err != nil {
		return err
	}
	tok, err := issueToken(c.ctx, st, u.ID, *expires)
	if err != nil {
		return err
	}
	return c.emit(map[string]any{"campaign_id": cp.ID, "user_id": u.ID, "token": tok})
}

func memberAdd(c *cli, fs *flag.FlagSet, args []string) error {
	campaign := fs.Int64("campaign", 0, "campaign id")
	user := fs.String("user", "", "user name (a new name creates the user)")
	role := fs.String("role", "", "role: admin, member or viewer")
	expires := fs.Duration("expires", 0, "lifetime of the member's token (0: no expiry)")
	if err := parse(c, fs, args); err != nil {
		return err
	}
	if err := required(fs, "campaign", "user", "role"); err != nil {
		return err
	}
	r, ok := domain.ParseRole(*role)
	if !ok {
		return usagef("%s: --role must be admin, member or viewer", fs.Name())
	}
	if *campaign < 1 {
		return usagef("%s: --campaign must be a campaign id", fs.Name())
	}
	st, u, err := c.user(*user)
	if err != nil {
		return err
	}
	if err := campstore.New(st).SetMember(c.ctx, domain.Membership{CampaignID: *campaign, UserID: u.ID, Role: r}); err != nil {
		return fmt.Errorf("campaign %d: %w", *campaign, err)
	}
	tok, err := issueToken(c.ctx, st, u.ID, *expires)
	if err != nil {
		return err
	}
	return c.emit(map[string]any{"campaign_id": *campaign, "user_id": u.ID, "role": r, "token": tok})
}

func tokenCreate(c *cli, fs *flag.FlagSet, args []string) error {
	user := fs.String("user", "", "user name (a new name creates the user)")
	expires := fs.Duration("expires", 0, "token lifetime (0: no expiry)")
	fields := token.FieldsAll
	fs.Func("field-set", `the fields the token's answers carry: "all" (default) or "2022" (only the 2022 API's, for clients that refuse fields they do not know)`, func(s string) error {
		var err error
		fields, err = token.ParseFieldSet(s)
		return err
	})
	if err := parse(c, fs, args); err != nil {
		return err
	}
	if err := required(fs, "user"); err != nil {
		return err
	}
	st, u, err := c.user(*user)
	if err != nil {
		return err
	}
	tok, err := issueBoundToken(c.ctx, st, u.ID, *expires, fields)
	if err != nil {
		return err
	}
	name := string(fields)
	if fields == token.FieldsAll {
		name = "all"
	}
	return c.emit(map[string]any{"user_id": u.ID, "token": tok, "field_set": name})
}

func tokenRevoke(c *cli, fs *flag.FlagSet, args []string) error {
	raw := fs.String("token", "", "the token to revoke")
	if err := parse(c, fs, args); err != nil {
		return err
	}
	if err := required(fs, "token"); err != nil {
		return err
	}
	st, err := c.store()
	if err != nil {
		return err
	}
	if err := st.Tokens().Revoke(c.ctx, token.Hash(*raw)); err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	return c.emit(map[string]any{"revoked": true})
}

// migrateCmd rewrites the table to the store's key layout (resumable), with progress on stderr,
// then stores up to --images of the image_urls written before images were (when IMAGE_BUCKET
// is set).
func migrateCmd(c *cli, fs *flag.FlagSet, args []string) error {
	limit := fs.Int("images", 25, "fetch at most this many old records' image_url into the image bucket this run (0: none); run again while images_done is false")
	if err := parse(c, fs, args); err != nil {
		return err
	}
	if *limit < 0 || *limit > maxLegacyImages {
		return usagef("--images must be between 0 and %d", maxLegacyImages)
	}
	st, err := c.store()
	if err != nil {
		return err
	}
	var bucket *imagestore.Bucket
	if *limit > 0 && c.getenv("IMAGE_BUCKET") != "" {
		if bucket, err = openBucket(c.ctx, c.getenv); err != nil {
			return err
		}
	}
	return migrateTable(c.ctx, st, bucket, localFetchIf(c.getenv), *limit, c.stdout, c.stderr)
}

// sweepCmd finishes the deletes pending for longer than --older-than, as the scheduled sweeper
// does on AWS, and prints what it did. Run it again while "remaining" is true.
func sweepCmd(c *cli, fs *flag.FlagSet, args []string) error {
	olderThan := fs.Duration("older-than", store.PendingDeleteAge, "finish deletes pending for longer than this (0s: all of them)")
	if err := parse(c, fs, args); err != nil {
		return err
	}
	if *olderThan < 0 {
		return usagef("%s: --older-than must not be negative", fs.Name())
	}
	st, err := c.store()
	if err != nil {
		return err
	}
	bucket, err := localImages(c.ctx, c.getenv)
	if err != nil {
		return err
	}
	res, err := sweeper.Run(c.ctx, st, *olderThan, sweepBucket(bucket))
	if err != nil {
		return fmt.Errorf("sweep (%d finished, %d failed; run it again): %w", res.Finished, res.Failed, err)
	}
	return c.emit(res)
}

// demoCmd ensures the table, a "demo" user and its campaign, and prints a fresh admin token.
func demoCmd(c *cli, fs *flag.FlagSet, args []string) error {
	if err := parse(c, fs, args); err != nil {
		return err
	}
	st, err := c.store()
	if err != nil {
		return err
	}
	if _, err := store.CreateTable(c.ctx, st.Client(), c.cfg.TableName); err != nil {
		return err
	}
	u, err := campstore.New(st).EnsureUser(c.ctx, "demo")
	if err != nil {
		return err
	}
	ids, err := campstore.New(st).UserCampaigns(c.ctx, u.ID)
	if err != nil {
		return err
	}
	var cid int64
	if len(ids) > 0 {
		cid = ids[0]
	} else {
		cp, err := campstore.New(st).CreateCampaign(c.ctx, domain.Campaign{Name: "Demo campaign", OwnerID: u.ID, Boost: domain.BoostSuperboosted})
		if err != nil {
			return err
		}
		cid = cp.ID
	}
	tok, err := issueToken(c.ctx, st, u.ID, 0)
	if err != nil {
		return err
	}
	return c.emit(map[string]any{"campaign_id": cid, "user_id": u.ID, "token": tok})
}

func issueToken(ctx context.Context, st *store.Store, uid int64, ttl time.Duration) (string, error) {
	return issueBoundToken(ctx, st, uid, ttl, token.FieldsAll)
}

// issueBoundToken is issueToken for a token bound to field set fs (token.FieldSet).
func issueBoundToken(ctx context.Context, st *store.Store, uid int64, ttl time.Duration, fs token.FieldSet) (string, error) {
	raw, t, err := token.NewWithFieldSet(uid, ttl, fs, time.Now())
	if err != nil {
		return "", err
	}
	return raw, st.Tokens().Put(ctx, t)
}
