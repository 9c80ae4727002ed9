package deploy_test

import (
	"reflect"
	"slices"
	"testing"
)

// The webhooks' delivery queue as DESIGN 11 says: FIFO with the webhook as message group and
// explicit deduplication ids, its dead-letter queue, the delivery function reading it with
// partial batch answers and a bound on its concurrency, each function granted exactly its
// queue actions, and alarms on the stream's and the queue's lag.
func TestWebhookQueues(t *testing.T) {
	tpl := loadTemplate(t)
	res := tpl.resources()
	q, dlq := at(res["WebhookQueue"], "Properties"), at(res["WebhookDeadLetterQueue"], "Properties")
	for k, want := range map[string]any{"FifoQueue": true, "ContentBasedDeduplication": false, "VisibilityTimeout": 360,
		"MessageRetentionPeriod": 1209600, "SqsManagedSseEnabled": true, "DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"} {
		if got := at(q, k); !reflect.DeepEqual(got, want) {
			t.Errorf("WebhookQueue %s = %v, want %v", k, got, want)
		}
	}
	if at(dlq, "FifoQueue") != true || at(dlq, "MessageRetentionPeriod") != 1209600 || at(dlq, "SqsManagedSseEnabled") != true {
		t.Errorf("WebhookDeadLetterQueue = %v, want FIFO, 14 days, encrypted", dlq)
	}
	if got := at(q, "RedrivePolicy"); !reflect.DeepEqual(got, map[string]any{"deadLetterTargetArn": getAtt("WebhookDeadLetterQueue", "Arn"), "maxReceiveCount": 100}) {
		t.Errorf("WebhookQueue RedrivePolicy = %v", got)
	}
	// Lambda asks a queue's visibility timeout to be at least the function's timeout (six times, advised).
	if to, _ := tpl.functionProp("WebhookDeliveryFunction", "Timeout").(int); to*6 > 360 {
		t.Errorf("WebhookDeliveryFunction Timeout %d s: the queue's 360 s visibility is under six times it", to)
	}
	ev := at(res["WebhookDeliveryFunction"], "Properties", "Events", "Queue", "Properties")
	if at(ev, "Queue") == nil || !reflect.DeepEqual(at(ev, "Queue"), getAtt("WebhookQueue", "Arn")) || at(ev, "BatchSize") != 10 ||
		!reflect.DeepEqual(at(ev, "FunctionResponseTypes"), []any{"ReportBatchItemFailures"}) {
		t.Errorf("WebhookDeliveryFunction's queue event = %v", ev)
	}
	if c, _ := at(ev, "ScalingConfig", "MaximumConcurrency").(int); c < 2 || c > 50 {
		t.Errorf("WebhookDeliveryFunction MaximumConcurrency = %v, want a bound (2..50)", at(ev, "ScalingConfig"))
	}
	if at(res["WebhooksFunction"], "Properties", "Events", "Stream", "Type") != "DynamoDB" || len(asMap(at(res["WebhooksFunction"], "Properties", "Events"))) != 1 {
		t.Errorf("WebhooksFunction events = %v, want the stream alone", at(res["WebhooksFunction"], "Properties", "Events"))
	}
	for fn, want := range map[string][]string{
		"WebhooksFunction":        {"sqs:SendMessage WebhookQueue"},
		"WebhookDeliveryFunction": {"sqs:ChangeMessageVisibility WebhookQueue", "sqs:DeleteMessage WebhookQueue", "sqs:SendMessage WebhookDeadLetterQueue"},
	} {
		if got := tpl.queueActions(fn); !slices.Equal(got, want) {
			t.Errorf("%s queue grants = %v, want %v", fn, got, want)
		}
		env := asMap(at(tpl.functionProp(fn, "Environment"), "Variables"))
		if !reflect.DeepEqual(env["WEBHOOK_QUEUE_URL"], ref("WebhookQueue")) || !reflect.DeepEqual(env["WEBHOOK_DEAD_LETTER_QUEUE_URL"], ref("WebhookDeadLetterQueue")) || env["SQS_ENDPOINT"] != "" {
			t.Errorf("%s environment = %v, want the queues' URLs and SQS_ENDPOINT empty", fn, env)
		}
	}
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		if fn != "WebhooksFunction" && fn != "WebhookDeliveryFunction" && len(tpl.queueActions(fn)) > 0 {
			t.Errorf("%s is granted %v on the webhooks' queues", fn, tpl.queueActions(fn))
		}
	}
	if !watches(alarmsOn(tpl, "AWS/Lambda", "IteratorAge"), ref("WebhooksFunction")) {
		t.Error("no alarm on the stream's IteratorAge (WebhooksFunction)")
	}
	if a := alarmsOn(tpl, "AWS/SQS", "ApproximateAgeOfOldestMessage"); !watches(a, getAtt("WebhookQueue", "QueueName")) {
		t.Errorf("no alarm on WebhookQueue's ApproximateAgeOfOldestMessage: %v", a)
	}
	if got := at(res["WebhookQueueAgeAlarm"], "Properties", "Threshold"); !reflect.DeepEqual(got, ref("WebhookQueueAgeSeconds")) {
		t.Errorf("WebhookQueueAgeAlarm Threshold = %v, want !Ref WebhookQueueAgeSeconds", got)
	}
	// Above one event's whole retry schedule (8.5 h), which a failing subscriber holds its own for.
	if d, _ := at(tpl, "Parameters", "WebhookQueueAgeSeconds", "Default").(int); d < 9*3600 {
		t.Errorf("WebhookQueueAgeSeconds default = %v, want above 8.5 hours", d)
	}
}
