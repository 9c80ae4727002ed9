package imagework

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/lorekeep/lorekeep/shared/images"
)

// HTTPHandler is API Gateway's side of a function (lambdaapi.Handler).
type HTTPHandler func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// LambdaHandler is ImagesFunction's handler: an invocation whose payload is an
// images.InvokeRequest (a family function's job) runs on p; any other is an API Gateway
// request of its own routes (Kanka's entities/{id}/image), served by h.
func LambdaHandler(h HTTPHandler, p images.Processor) func(context.Context, json.RawMessage) (any, error) {
	return func(ctx context.Context, payload json.RawMessage) (any, error) {
		var job images.InvokeRequest
		if err := json.Unmarshal(payload, &job); err == nil && job.ImageJob != nil {
			return images.Answer(ctx, p, *job.ImageJob)
		}
		var req events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal(payload, &req); err != nil {
			return nil, fmt.Errorf("imagework: an invocation neither a job nor an HTTP request: %w", err)
		}
		return h(ctx, req)
	}
}
