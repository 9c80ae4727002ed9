package webhooks

// The delivery queue: an SQS FIFO queue (on AWS the template's WebhookQueue, locally
// `lorekeep sqs`, the same API) whose message group is the webhook, so that a webhook's events
// are handed out one delivery at a time and in the order they were queued, while every other
// webhook's go on. Its dead-letter queue keeps the events given up on.
//
//	message body      {"campaign_id", "webhook_id", "event_id", "event", "payload", "created_at"}
//	MessageGroupId    webhook-<campaign id>-<webhook id>
//	dedup id          <event id>-<webhook id> (a change queued twice within 5 minutes is one message)

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
)

// Queue limits of SQS: messages a batch call takes, and the longest a message can be hidden.
const (
	sqsBatch      = 10
	maxVisibility = 12 * time.Hour
)

// QueueVisibility is the queue's own visibility timeout: how long a delivery that crashed holds
// its webhook's events before they are handed out again (six times the delivery function's
// timeout, as Lambda asks of a queue it reads).
const QueueVisibility = 6 * DeliveryTimeout

// DeliveryTimeout bounds one delivery run: the delivery function's timeout, and the local
// consumer's.
const DeliveryTimeout = 60 * time.Second

// Queue sends events to the delivery queue and settles the messages a delivery was handed.
type Queue struct {
	client       *sqs.Client
	url, deadURL string
}

// NewQueue is the delivery queue at url with its dead-letter queue at deadURL.
func NewQueue(client *sqs.Client, url, deadURL string) *Queue {
	return &Queue{client: client, url: url, deadURL: deadURL}
}

// URL is the queue's address.
func (q *Queue) URL() string { return q.url }

// DeadLetterURL is its dead-letter queue's.
func (q *Queue) DeadLetterURL() string { return q.deadURL }

// Client is the queue's SQS client.
func (q *Queue) Client() *sqs.Client { return q.client }

// SQSClient builds an SQS client with the store's connection settings (region, credentials,
// HTTP client, retries) and endpoint, "" for AWS's.
func SQSClient(st *store.Store, endpoint string) *sqs.Client {
	cfg := st.Client().Options()
	o := sqs.Options{Region: cfg.Region, Credentials: cfg.Credentials, HTTPClient: cfg.HTTPClient, Retryer: cfg.Retryer}
	if endpoint != "" {
		o.BaseEndpoint = aws.String(endpoint)
	}
	return sqs.New(o)
}

// QueueFromEnv is the delivery queue of the environment: WEBHOOK_QUEUE_URL and
// WEBHOOK_DEAD_LETTER_QUEUE_URL, through SQS_ENDPOINT when set (a local SQS-compatible server).
func QueueFromEnv(st *store.Store, getenv func(string) string) (*Queue, error) {
	url, dead := getenv("WEBHOOK_QUEUE_URL"), getenv("WEBHOOK_DEAD_LETTER_QUEUE_URL")
	if url == "" || dead == "" {
		return nil, errors.New("webhooks: WEBHOOK_QUEUE_URL and WEBHOOK_DEAD_LETTER_QUEUE_URL must be set")
	}
	return NewQueue(SQSClient(st, getenv("SQS_ENDPOINT")), url, dead), nil
}

// CreateQueues makes (or finds) the FIFO queue name.fifo and its dead-letter queue
// name-dead-letter.fifo with the template's settings: the local setup (`lorekeep serve`,
// tests). maxReceives is the redrive policy's count.
func CreateQueues(ctx context.Context, client *sqs.Client, name string, maxReceives int) (*Queue, error) {
	dead, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-dead-letter.fifo"),
		Attributes: map[string]string{"FifoQueue": "true", "MessageRetentionPeriod": "1209600"}})
	if err != nil {
		return nil, fmt.Errorf("create the webhooks' dead-letter queue: %w", err)
	}
	attrs, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: dead.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		return nil, fmt.Errorf("read the webhooks' dead-letter queue: %w", err)
	}
	redrive, _ := json.Marshal(map[string]any{"deadLetterTargetArn": attrs.Attributes["QueueArn"], "maxReceiveCount": maxReceives})
	main, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + ".fifo"),
		Attributes: map[string]string{"FifoQueue": "true", "MessageRetentionPeriod": "1209600",
			"VisibilityTimeout": strconv.Itoa(int(QueueVisibility / time.Second)), "RedrivePolicy": string(redrive)}})
	if err != nil {
		return nil, fmt.Errorf("create the webhooks' queue: %w", err)
	}
	return NewQueue(client, aws.ToString(main.QueueUrl), aws.ToString(dead.QueueUrl)), nil
}

// MaxReceives is the template's redrive count: a message handed out that often (a delivery
// that keeps crashing) goes to the dead-letter queue. Failed attempts never get there: a
// delivery counts them itself and moves an event given up on (Deliverer.Deliver).
const MaxReceives = 100

// message is the queue's message body.
type message struct {
	CampaignID int64           `json:"campaign_id"`
	WebhookID  int64           `json:"webhook_id"`
	EventID    string          `json:"event_id"`
	Event      string          `json:"event"`
	Payload    json.RawMessage `json:"payload"`
	CreatedAt  string          `json:"created_at"`
}

func encode(q hook.Queued) string {
	b, _ := json.Marshal(message{CampaignID: q.CampaignID, WebhookID: q.WebhookID, EventID: q.EventID, Event: q.Event,
		Payload: q.Payload, CreatedAt: domain.FormatTime(q.Created)})
	return string(b)
}

func decode(body string) (hook.Queued, error) {
	var m message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return hook.Queued{}, err
	}
	if m.CampaignID <= 0 || m.WebhookID <= 0 || m.EventID == "" {
		return hook.Queued{}, errors.New("webhooks: a queue message without campaign, webhook or event")
	}
	at, _ := time.Parse(time.RFC3339Nano, m.CreatedAt)
	return hook.Queued{CampaignID: m.CampaignID, WebhookID: m.WebhookID, EventID: m.EventID, Event: m.Event,
		Payload: m.Payload, Created: at}, nil
}

// GroupID is the message group of a webhook's events.
func GroupID(cid, wid int64) string {
	return "webhook-" + strconv.FormatInt(cid, 10) + "-" + strconv.FormatInt(wid, 10)
}

func dedupID(q hook.Queued) string { return q.EventID + "-" + strconv.FormatInt(q.WebhookID, 10) }

// Send queues events in order (SendMessageBatch, 10 a call); it answers how many were queued
// before the first that could not be.
func (q *Queue) Send(ctx context.Context, evs []hook.Queued) (int, error) {
	return q.sendTo(ctx, q.url, evs)
}

func (q *Queue) sendTo(ctx context.Context, url string, evs []hook.Queued) (int, error) {
	for from := 0; from < len(evs); from += sqsBatch {
		chunk := evs[from:min(from+sqsBatch, len(evs))]
		entries := make([]types.SendMessageBatchRequestEntry, len(chunk))
		for i, e := range chunk {
			entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(encode(e)),
				MessageGroupId: aws.String(GroupID(e.CampaignID, e.WebhookID)), MessageDeduplicationId: aws.String(dedupID(e))}
		}
		out, err := q.client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil {
			return from, err
		}
		if len(out.Failed) > 0 {
			first := len(chunk)
			for _, f := range out.Failed {
				if i, err := strconv.Atoi(aws.ToString(f.Id)); err == nil && i < first {
					first = i
				}
			}
			return from + first, fmt.Errorf("webhooks: queue refused an event: %s", aws.ToString(out.Failed[0].Message))
		}
	}
	return len(evs), nil
}

// Received is a message a delivery was handed: its id, receipt and body.
type Received struct {
	ID, Receipt, Body string
}

// Receive takes up to max messages: what Lambda's event source mapping does on AWS, for the
// local consumer.
func (q *Queue) Receive(ctx context.Context, max int) ([]Received, error) {
	out, err := q.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.url), MaxNumberOfMessages: int32(max)})
	if err != nil {
		return nil, err
	}
	res := make([]Received, len(out.Messages))
	for i, m := range out.Messages {
		res[i] = Received{ID: aws.ToString(m.MessageId), Receipt: aws.ToString(m.ReceiptHandle), Body: aws.ToString(m.Body)}
	}
	return res, nil
}

// Hide keeps messages from being handed out again for wait (a retry's backoff).
func (q *Queue) Hide(ctx context.Context, ms []Received, wait time.Duration) error {
	secs := int32(min(max(wait, 0), maxVisibility) / time.Second)
	var errs []error
	for _, m := range ms {
		_, err := q.client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(q.url),
			ReceiptHandle: aws.String(m.Receipt), VisibilityTimeout: secs})
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Delete removes messages that are settled (delivered, given up on, or for no webhook), which
// frees their webhook's group at once.
func (q *Queue) Delete(ctx context.Context, ms []Received) error {
	for from := 0; from < len(ms); from += sqsBatch {
		chunk := ms[from:min(from+sqsBatch, len(ms))]
		entries := make([]types.DeleteMessageBatchRequestEntry, len(chunk))
		for i, m := range chunk {
			entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(m.Receipt)}
		}
		if _, err := q.client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q.url), Entries: entries}); err != nil {
			return err
		}
	}
	return nil
}

// Abandon moves an event given up on to the dead-letter queue, to inspect or redrive.
func (q *Queue) Abandon(ctx context.Context, e hook.Queued) error {
	_, err := q.sendTo(ctx, q.deadURL, []hook.Queued{e})
	return err
}

// DeadLetters reads (and hides for a minute) up to max events of the dead-letter queue: tests
// and operators.
func (q *Queue) DeadLetters(ctx context.Context, max int) ([]hook.Queued, error) {
	out, err := q.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.deadURL), MaxNumberOfMessages: int32(max),
		VisibilityTimeout: 60})
	if err != nil {
		return nil, err
	}
	var res []hook.Queued
	for _, m := range out.Messages {
		if e, err := decode(aws.ToString(m.Body)); err == nil {
			res = append(res, e)
		}
	}
	return res, nil
}
