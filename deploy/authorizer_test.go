package deploy_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/lorekeep/lorekeep/shared/authorizer"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/token"
)

// tokenPlaceholder is what events/authorizer.json carries where a real token goes.
const tokenPlaceholder = "<token>"

// authorizerEvent reads events/authorizer.json with token in place of the placeholder
// (in the Authorization header and the identity source alike).
func authorizerEvent(t *testing.T, token string) events.APIGatewayV2CustomAuthorizerV2Request {
	t.Helper()
	raw := string(readEvent(t, "authorizer.json"))
	if strings.Count(raw, tokenPlaceholder) != 2 {
		t.Fatalf("events/authorizer.json: want %q in the authorization header and the identity source", tokenPlaceholder)
	}
	var ev events.APIGatewayV2CustomAuthorizerV2Request
	decodeStrict(t, "authorizer.json", []byte(strings.ReplaceAll(raw, tokenPlaceholder, token)), &ev)
	return ev
}

func mintToken(t *testing.T, st *store.Store, uid int64, ttl time.Duration, now time.Time) string {
	t.Helper()
	raw, tok, err := token.New(uid, ttl, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Tokens().Put(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestAuthorizerEventIsWhatAPIGatewaySends(t *testing.T) {
	ev := authorizerEvent(t, "tok")
	routes := loadTemplate(t).httpAPIRoutes(t)
	method, path, _ := strings.Cut(ev.RouteKey, " ")
	if _, ok := routes[route{method, path}]; !ok {
		t.Errorf("routeKey %q is not a route of template.yaml", ev.RouteKey)
	}
	if ev.Version != "2.0" || ev.Type != "REQUEST" {
		t.Errorf("version %q type %q, want 2.0 REQUEST (payload format 2.0)", ev.Version, ev.Type)
	}
	// The identity source is the Authorization header (template.yaml's Identity.Headers).
	if !slices.Equal(ev.IdentitySource, []string{ev.Headers["authorization"]}) || ev.Headers["authorization"] != "Bearer tok" {
		t.Errorf("identitySource %v, authorization %q: want the header's value as the only identity source", ev.IdentitySource, ev.Headers["authorization"])
	}
	if ev.RequestContext.HTTP.Method != method && method != "ANY" || ev.RequestContext.HTTP.Path != ev.RawPath || ev.RequestContext.RouteKey != ev.RouteKey {
		t.Errorf("requestContext %+v does not match routeKey %q and rawPath %q", ev.RequestContext, ev.RouteKey, ev.RawPath)
	}
	if !strings.HasSuffix(ev.RouteArn, "/$default/"+method+path) {
		t.Errorf("routeArn %q does not name the route", ev.RouteArn)
	}
}

func TestAuthorizerEvent(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	seed(t, st)
	ctx := context.Background()
	now := time.Now()
	auth := authorizer.Handler(st.Tokens(), func() time.Time { return now })

	valid := mintToken(t, st, 1, 0, now)
	raw2022, tok2022, err := token.NewWithFieldSet(1, 0, token.Fields2022, now)
	if err != nil || st.Tokens().Put(ctx, tok2022) != nil {
		t.Fatal(err)
	}
	revoked := mintToken(t, st, 1, 0, now)
	if err := st.Tokens().Revoke(ctx, token.Hash(revoked)); err != nil {
		t.Fatal(err)
	}
	expired := mintToken(t, st, 1, time.Hour, now.Add(-2*time.Hour))
	unknown, _, err := token.New(1, 0, now) // well formed, never stored
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name   string
		token  string
		user   string // "" when the context must hold no user
		fields any    // the context's field set (nil: none)
	}{
		{"valid token", valid, "1", nil},
		{"token bound to the 2022 field set", raw2022, "1", "2022"},
		{"unknown token", unknown, "", nil},
		{"revoked token", revoked, "", nil},
		{"expired token", expired, "", nil},
		{"malformed token", "not-a-token", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := auth(ctx, authorizerEvent(t, c.token))
			if err != nil {
				t.Fatalf("authorizer error: %v", err)
			}
			// Always authorised (simple responses): a false would make API Gateway answer 403,
			// where the contract wants the function's 401 "Unauthenticated.".
			if !res.IsAuthorized {
				t.Error("isAuthorized = false, want true")
			}
			uid, has := res.Context[token.UserIDKey]
			switch {
			case c.user == "" && has:
				t.Errorf("context %v, want no user", res.Context)
			case c.user != "" && uid != c.user:
				t.Errorf("context %v, want %s = %q", res.Context, token.UserIDKey, c.user)
			}
			if res.Context[token.FieldSetKey] != c.fields {
				t.Errorf("context %v, want %s = %v", res.Context, token.FieldSetKey, c.fields)
			}
		})
	}

	// What the authorizer answers is what the function reads: its context, put where API
	// Gateway puts it, authenticates the locations event (and an empty one does not).
	// The field set too: a 2022 token's location carries the 2022 fields only.
	h := functionHandlers["LocationsFunction"](st)
	create := loadEvent(t, "locations-create.json")
	create.RequestContext.Authorizer.Lambda = map[string]any{token.UserIDKey: "1"}
	if r := invoke(t, h, create); r.StatusCode != http.StatusOK {
		t.Fatalf("locations-create: %d %s", r.StatusCode, r.Body)
	}
	for _, c := range []struct {
		token     string
		want      int
		todayKeys bool // entity_image_uuid and entry_parsed in the rows
	}{{valid, http.StatusOK, true}, {raw2022, http.StatusOK, false}, {revoked, http.StatusUnauthorized, false}} {
		res, err := auth(ctx, authorizerEvent(t, c.token))
		if err != nil {
			t.Fatal(err)
		}
		ev := loadEvent(t, "locations-list.json")
		ev.Headers["authorization"] = "Bearer " + c.token
		ev.RequestContext.Authorizer.Lambda = res.Context
		r := invoke(t, h, ev)
		if r.StatusCode != c.want {
			t.Errorf("locations-list with the authorizer's context %v: status %d, want %d: %s", res.Context, r.StatusCode, c.want, r.Body)
			continue
		}
		for _, row := range r.list() {
			_, uuid := row.(map[string]any)["entity_image_uuid"]
			_, parsed := row.(map[string]any)["entry_parsed"]
			if uuid != c.todayKeys || parsed != c.todayKeys || row.(map[string]any)["name"] == nil {
				t.Errorf("locations-list with the authorizer's context %v: row %v, want today's fields %v", res.Context, row, c.todayKeys)
			}
		}
		if c.want == http.StatusOK && len(r.list()) != 1 {
			t.Errorf("locations-list with the authorizer's context %v: %s, want the one location", res.Context, r.Body)
		}
	}
}
