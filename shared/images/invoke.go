package images

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/store/awsdb"
)

// The invoke protocol between a family function and ImagesFunction (DESIGN 13): Lambda's
// Invoke API (POST /2015-03-31/functions/{name}/invocations, RequestResponse), signed with
// Signature V4 like the bucket's requests. The payload is an InvokeRequest; ImagesFunction
// answers an InvokeResponse, or a function error (X-Amz-Function-Error) for a crash or a
// timeout. No failure of the bucket or of the function is a 503, which says that DynamoDB is
// unavailable (DESIGN 2): a function error is a 422 naming the field (the file could not be
// processed: sending it again would fail again), a refused or failed invoke and a busy bucket
// are apperr.ErrImagesBusy (429, Retry-After). Nothing is written for the record either way.
type InvokeRequest struct {
	ImageJob *Job `json:"image_job"`
}

// InvokeResponse is the stored path, or the problem of a bad image (the family's 422 naming
// Field), or Unavailable (a 503: the table did not answer), or Busy (the bucket did not).
type InvokeResponse struct {
	Path        string `json:"path,omitempty"`
	Field       string `json:"field,omitempty"`
	Message     string `json:"message,omitempty"`
	Unavailable string `json:"unavailable,omitempty"`
	Busy        string `json:"busy,omitempty"`
}

// Answer runs a job on p and shapes its outcome (ImagesFunction's side of the protocol); an
// error it returns is a bug, reported as a function error.
func Answer(ctx context.Context, p Processor, j Job) (InvokeResponse, error) {
	path, err := p.Process(ctx, j)
	var ae *apperr.Error
	switch {
	case err == nil:
		return InvokeResponse{Path: path}, nil
	case errors.Is(err, apperr.ErrImagesBusy):
		return InvokeResponse{Busy: err.Error()}, nil
	case errors.Is(err, apperr.ErrUnavailable):
		return InvokeResponse{Unavailable: err.Error()}, nil
	case errors.As(err, &ae) && ae.Code == apperr.EInvalid && ae.Fields != nil && len(ae.Fields.Fields()) > 0:
		f := ae.Fields.Fields()[0]
		return InvokeResponse{Field: f, Message: ae.Fields.Messages(f)[0]}, nil
	}
	return InvokeResponse{}, err
}

// IncomingPrefix is where a family function puts campaign cid's uploads for ImagesFunction;
// the bucket's lifecycle rule expires what is left there after a day.
func IncomingPrefix(cid int64) string { return fmt.Sprintf("incoming/%d/", cid) }

// InvokeTimeout bounds one invoke: the work's bound (imagework.WorkTimeout, 20 s) and a
// margin for a cold start, within httpapi.ImageTimeout.
const InvokeTimeout = 22 * time.Second

// Incoming is the bucket as the family functions use it: put an upload under incoming/.
type Incoming interface {
	Put(ctx context.Context, key, contentType string, data []byte) error
}

// InvokeConfig says which function to invoke: IMAGES_FUNCTION, with AWS_REGION, and
// LAMBDA_ENDPOINT for a local server of the same protocol (tests).
type InvokeConfig struct {
	Function string
	Endpoint string
	Region   string
}

// InvokeConfigFromEnv reads IMAGES_FUNCTION, LAMBDA_ENDPOINT and AWS_REGION.
func InvokeConfigFromEnv(getenv func(string) string) InvokeConfig {
	return InvokeConfig{Function: getenv("IMAGES_FUNCTION"), Endpoint: getenv("LAMBDA_ENDPOINT"), Region: getenv("AWS_REGION")}
}

// Invoker is the Processor of the family functions: it runs each job in ImagesFunction.
type Invoker struct {
	bucket Incoming
	cfg    aws.Config
	url    string
	signer *v4.Signer
}

// NewInvoker builds the invoker once (at cold start).
func NewInvoker(b Incoming, c InvokeConfig) (*Invoker, error) {
	if c.Function == "" {
		return nil, errors.New("images: IMAGES_FUNCTION is not set")
	}
	cfg := awsdb.AWSConfig(awsdb.Config{Endpoint: c.Endpoint, Region: c.Region})
	base := "https://lambda." + cfg.Region + ".amazonaws.com"
	if c.Endpoint != "" {
		base = strings.TrimSuffix(c.Endpoint, "/")
	}
	return &Invoker{bucket: b, cfg: cfg, url: base + "/2015-03-31/functions/" + url.PathEscape(c.Function) + "/invocations", signer: v4.NewSigner()}, nil
}

var _ Processor = (*Invoker)(nil)

// Process puts an upload's bytes under incoming/ (a Lambda payload could not carry 4 MiB
// once encoded) and invokes ImagesFunction with the job.
func (v *Invoker) Process(ctx context.Context, j Job) (string, error) {
	if j.Data != nil {
		var rnd [12]byte
		_, _ = rand.Read(rnd[:])
		j.Incoming = IncomingPrefix(j.CampaignID) + hex.EncodeToString(rnd[:])
		if err := v.bucket.Put(ctx, j.Incoming, "application/octet-stream", j.Data); err != nil {
			return "", err
		}
		j.Data = nil
	}
	payload, err := json.Marshal(InvokeRequest{ImageJob: &j})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, InvokeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.url, bytes.NewReader(payload))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Amz-Invocation-Type", "RequestResponse")
	status, header, out, err := imagestore.Signed(ctx, v.cfg, v.signer, "lambda", req, payload, 1<<20)
	if err != nil {
		return "", busy(ctx, fmt.Sprintf("invoke the image function: %v", err))
	}
	if status != http.StatusOK {
		// Throttled, Lambda's outage or a misconfiguration (logged): the function did not run.
		return "", busy(ctx, fmt.Sprintf("invoke the image function: HTTP %d: %.300s", status, out))
	}
	var res InvokeResponse
	if fe := header.Get("X-Amz-Function-Error"); fe != "" || json.Unmarshal(out, &res) != nil || res == (InvokeResponse{}) {
		// A crash, a timeout or running out of memory on this file: it would again. Whatever
		// the function put is still only reserved, and the sweeper deletes it.
		slog.ErrorContext(ctx, "the image function failed", "function_error", fe, "answer", fmt.Sprintf("%.300s", out))
		return "", Unprocessable(j.Field)
	}
	switch {
	case res.Unavailable != "":
		return "", fmt.Errorf("%w (the image function: %s)", apperr.ErrUnavailable, res.Unavailable)
	case res.Busy != "":
		return "", fmt.Errorf("%w (the image function: %s)", apperr.ErrImagesBusy, res.Busy)
	case res.Field != "":
		return "", apperr.Invalid(res.Field, res.Message)
	case res.Path == "":
		return "", Unprocessable(j.Field)
	}
	return res.Path, nil
}

// busy logs why the image function could not be invoked and answers ErrImagesBusy.
func busy(ctx context.Context, why string) error {
	slog.WarnContext(ctx, "the image function is unavailable", "err", why)
	return fmt.Errorf("%w (%s)", apperr.ErrImagesBusy, why)
}

// Unprocessable is the 422 of a file whose processing failed (the image function crashed or
// timed out on it).
func Unprocessable(field string) error {
	if field == "" {
		field = "image"
	}
	return apperr.Invalid(field, "The "+domain.Label(field)+" could not be processed; send another image.")
}
