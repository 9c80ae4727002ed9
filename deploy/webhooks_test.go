package deploy_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/webhooks"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
	"github.com/lorekeep/lorekeep/shared/webhooks/stream"
)

// registerWebhooks is functions/webhook-routes' Register.
func registerWebhooks(api *httpapi.API, st *store.Store) {
	webhooks.Register(api, st)
}

// webhooksReplay replays the WebhookRoutesFunction events on a fresh table (webhook 1). The
// subscriber's address does not resolve: the ping answers a failed attempt.
var webhooksReplay = []replayStep{
	{"webhooks-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created webhook", r.data(), map[string]any{"id": 1, "format": "discord", "is_active": true, "include_private": false})
		if s, _ := r.data()["secret"].(string); len(s) != len("whsec_")+64 {
			t.Errorf("secret = %q", s)
		}
		if w := mustWebhook(t, st); w.URL != "https://hooks.lorekeep.invalid/lorekeep" || len(w.Events) != 2 {
			t.Errorf("stored webhook = %+v", w)
		}
	}},
	{"webhooks-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v", r.body["data"])
		}
	}},
	{"webhooks-list-head.json", nil},
	{"webhooks-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "webhook", r.data(), map[string]any{"id": 1, "url": "https://hooks.lorekeep.invalid/lorekeep"})
		if _, ok := r.data()["secret"]; ok {
			t.Errorf("show answers the secret")
		}
	}},
	{"webhooks-update-patch.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "patched webhook", r.data(), map[string]any{"include_private": true, "format": "discord"})
	}},
	{"webhooks-update-put.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "updated webhook", r.data(), map[string]any{"url": "https://hooks.lorekeep.invalid/v2", "format": "kanka", "include_private": true})
	}},
	{"webhooks-test.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "ping", r.data(), map[string]any{"event": "webhook.test", "ok": false, "status": nil, "attempt": 1})
	}},
	{"webhooks-deliveries.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("deliveries = %v, want the ping", r.body["data"])
		}
	}},
	{"webhooks-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted webhook", r.data(), map[string]any{"id": 1, "deleted": true})
		if _, err := webhooks.NewStorage(st).GetWebhook(context.Background(), 1, 1); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("webhook after delete: %v", err)
		}
	}},
}

// streamEvents are the webhooks function's own events (not API Gateway's), replayed by
// TestWebhooksFunctionEvents.
var streamEvents = []string{"webhooks-stream.json", "webhooks-schedule.json"}

func mustWebhook(t *testing.T, st *store.Store) *hook.Webhook {
	t.Helper()
	w, err := webhooks.NewStorage(st).GetWebhook(context.Background(), 1, 1)
	if err != nil {
		t.Fatalf("webhook 1 of campaign 1: %v", err)
	}
	return w
}

// The stream sample queues the location's event for the campaign's webhook (and tries it: the
// address does not resolve); the scheduled sample runs the retry sweep.
func TestWebhooksFunctionEvents(t *testing.T) {
	base, _ := dynamotest.NewStore(t)
	seed(t, base)
	st := webhooks.NewStorage(base)
	ctx := context.Background()
	w := &hook.Webhook{Meta: domain.Meta{CampaignID: 1, CreatedBy: 1}, URL: "https://hooks.lorekeep.invalid/x", Format: hook.FormatLorekeep,
		IsActive: true, Secret: "whsec_test"}
	if err := st.CreateWebhook(ctx, w, webhooks.MaxWebhooks); err != nil {
		t.Fatal(err)
	}
	h := stream.LambdaHandler(st, webhooks.NewDeliverer(st, webhooks.Settings{}))
	out, err := h(ctx, json.RawMessage(readEvent(t, "webhooks-stream.json")))
	if err != nil {
		t.Fatal(err)
	}
	res, ok := out.(events.DynamoDBEventResponse)
	if !ok || len(res.BatchItemFailures) != 0 {
		t.Fatalf("stream batch answer = %#v, want no failure", out)
	}
	items, st8, err := st.Queue(ctx, 1, w.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Event != "location.created" || items[0].Attempts != 1 || st8.Failures != 1 {
		t.Fatalf("queue = %+v %+v, want the location's event after one failed attempt", items, st8)
	}
	if _, err := h(ctx, json.RawMessage(readEvent(t, "webhooks-schedule.json"))); err != nil {
		t.Fatalf("scheduled run: %v", err)
	}
}
