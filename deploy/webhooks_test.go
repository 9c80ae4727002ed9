package deploy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/sqstest"
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

// streamEvents are the webhook functions' own events (not API Gateway's), replayed by
// TestWebhooksFunctionEvents.
var streamEvents = []string{"webhooks-stream.json", "webhooks-delivery.json"}

func mustWebhook(t *testing.T, st *store.Store) *hook.Webhook {
	t.Helper()
	w, err := webhooks.NewStorage(st).GetWebhook(context.Background(), 1, 1)
	if err != nil {
		t.Fatalf("webhook 1 of campaign 1: %v", err)
	}
	return w
}

// The stream sample queues the location's event for the campaign's webhook (and sends
// nothing); the delivery sample tries it (the address does not resolve): a failed attempt,
// logged, counted in the webhook's state, and the message reported to be handed out again.
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
	q := sqstest.Queue(t, base)
	d := webhooks.NewDeliverer(st, q, webhooks.Settings{})
	out, err := stream.LambdaHandler(st, d)(ctx, json.RawMessage(readEvent(t, "webhooks-stream.json")))
	if err != nil || len(out.BatchItemFailures) != 0 {
		t.Fatalf("stream batch answer = %#v (%v), want no failure", out, err)
	}
	if got := queuedEvents(t, q); len(got) != 1 || got[0] != "location.created 1 1" {
		t.Fatalf("queue = %v, want the location's event in webhook 1's group", got)
	}
	if as, _ := st.Attempts(ctx, 1, w.ID, 10); len(as) != 0 {
		t.Fatalf("attempts after the stream batch = %+v, want none: the stream's function sends nothing", as)
	}
	var ev events.SQSEvent
	if err := json.Unmarshal(readEvent(t, "webhooks-delivery.json"), &ev); err != nil {
		t.Fatal(err)
	}
	res, err := stream.DeliveryHandler(d)(ctx, ev)
	if err != nil || len(res.BatchItemFailures) != 1 || res.BatchItemFailures[0].ItemIdentifier != ev.Records[0].MessageId {
		t.Fatalf("delivery answer = %#v (%v), want the message handed out again", res, err)
	}
	as, err := st.Attempts(ctx, 1, w.ID, 10)
	if err != nil || len(as) != 1 || as[0].Event != "location.created" || as[0].Attempt != 1 || as[0].Error == "" {
		t.Fatalf("attempts = %+v (%v), want one failed attempt", as, err)
	}
	if _, state, err := st.Delivery(ctx, 1, w.ID); err != nil || state != (hook.QueueState{Failures: 1, Head: "5f0c3b8a9d2e4c1b8a7f6e5d4c3b2a19", Attempts: 1}) {
		t.Fatalf("delivery state = %+v (%v)", state, err)
	}
}

// queuedEvents takes what the queue holds (each message's event, campaign and webhook), hiding it.
func queuedEvents(t *testing.T, q *webhooks.Queue) []string {
	t.Helper()
	var out []string
	for {
		msgs, err := q.Client().ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL()), MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs.Messages) == 0 {
			return out
		}
		for _, m := range msgs.Messages {
			var body struct {
				Event      string `json:"event"`
				CampaignID int64  `json:"campaign_id"`
				WebhookID  int64  `json:"webhook_id"`
			}
			_ = json.Unmarshal([]byte(aws.ToString(m.Body)), &body)
			out = append(out, fmt.Sprintf("%s %d %d", body.Event, body.CampaignID, body.WebhookID))
		}
	}
}
