// Package imagestore is the bucket of stored images (S3; locally `lorekeep s3`, an
// S3-compatible server). Objects are written once under unguessable paths
// (store.ReserveImage) and read by browsers through CloudFront (on AWS) or straight from the
// local server; the functions only put and delete. It speaks S3's REST API itself, signed by
// the SDK's Signature V4 signer (the one DynamoDB's client uses) with the SDK configuration of
// awsdb: the SDK's S3 client adds about 1.1 MB to each binary (its endpoint rules, SigV4A,
// checksums, event streams), which the image functions' 10 MB budget does not have (DESIGN 13).
package imagestore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/awsdb"
)

// Config says where the bucket is: IMAGE_BUCKET, and S3_ENDPOINT for a local server (path-style
// addressing, fixed credentials), with AWS_REGION.
type Config struct {
	Bucket   string
	Endpoint string
	Region   string
}

// ConfigFromEnv reads IMAGE_BUCKET, S3_ENDPOINT and AWS_REGION.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{Bucket: getenv("IMAGE_BUCKET"), Endpoint: getenv("S3_ENDPOINT"), Region: getenv("AWS_REGION")}
}

// Bucket puts and deletes the objects of stored images.
type Bucket struct {
	cfg    aws.Config
	base   string // the bucket's URL, ending in "/"
	signer *v4.Signer
}

// Open builds the client once (at cold start).
func Open(c Config) (*Bucket, error) {
	if c.Bucket == "" {
		return nil, errors.New("imagestore: IMAGE_BUCKET is not set")
	}
	cfg := awsdb.AWSConfig(awsdb.Config{Endpoint: c.Endpoint, Region: c.Region})
	base := "https://" + c.Bucket + ".s3." + cfg.Region + ".amazonaws.com/"
	if c.Endpoint != "" {
		base = strings.TrimSuffix(c.Endpoint, "/") + "/" + c.Bucket + "/" // path style
	}
	return &Bucket{cfg: cfg, base: base, signer: v4.NewSigner()}, nil
}

// do sends one signed request for key ("" for the bucket itself) and answers its status and
// body (at most 16 MiB read).
func (b *Bucket) do(ctx context.Context, method, key string, body []byte, header http.Header) (int, []byte, error) {
	u := b.base
	if key != "" {
		parts := strings.Split(key, "/")
		for i, p := range parts {
			parts[i] = url.PathEscape(p)
		}
		u += strings.Join(parts, "/")
	} else {
		u = strings.TrimSuffix(u, "/")
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	status, _, out, err := Signed(ctx, b.cfg, b.signer, "s3", req, body, 16<<20)
	return status, out, err
}

// Signed sends req with body signed by Signature V4 for service (s3; lambda for the image
// function's invoke) and answers its status, header and body (at most limit bytes read).
func Signed(ctx context.Context, cfg aws.Config, signer *v4.Signer, service string, req *http.Request, body []byte, limit int64) (int, http.Header, []byte, error) {
	req.ContentLength = int64(len(body))
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	if service == "s3" {
		req.Header.Set("X-Amz-Content-Sha256", hash)
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return 0, nil, nil, err
	}
	if err := signer.SignHTTP(ctx, creds, req, hash, service, cfg.Region, time.Now().UTC()); err != nil {
		return 0, nil, nil, err
	}
	res, err := cfg.HTTPClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(io.LimitReader(res.Body, limit))
	return res.StatusCode, res.Header, out, err
}

// call is do for an operation that must answer 2xx (or one of ok).
func (b *Bucket) call(ctx context.Context, op, method, key string, body []byte, header http.Header, ok ...int) ([]byte, error) {
	status, out, err := b.do(ctx, method, key, body, header)
	if err == nil && status/100 != 2 && !contains(ok, status) {
		err = fmt.Errorf("HTTP %d: %.200s", status, out)
	}
	if err != nil {
		return nil, fmt.Errorf("%w (s3 %s %s: %v)", apperr.ErrImagesBusy, op, key, err)
	}
	return out, nil
}

func contains(list []int, n int) bool {
	for _, v := range list {
		if v == n {
			return true
		}
	}
	return false
}

// Ensure creates the bucket when it is missing (the local server's; on AWS the template makes it).
func (b *Bucket) Ensure(ctx context.Context) error {
	if status, _, err := b.do(ctx, http.MethodHead, "", nil, nil); err == nil && status == http.StatusOK {
		return nil
	}
	_, err := b.call(ctx, "create bucket", http.MethodPut, "", nil, nil, http.StatusConflict)
	return err
}

// Put writes one object; it is cached by readers for a year (a path is never rewritten).
func (b *Bucket) Put(ctx context.Context, key, contentType string, data []byte) error {
	_, err := b.call(ctx, "put", http.MethodPut, key, data, http.Header{
		"Content-Type": {contentType}, "Cache-Control": {"public, max-age=31536000, immutable"}})
	return err
}

// Get reads one object (tests); a missing one is apperr.ErrNotFound.
func (b *Bucket) Get(ctx context.Context, key string) ([]byte, error) {
	status, out, err := b.do(ctx, http.MethodGet, key, nil, nil)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w (s3 get %s: %v)", apperr.ErrImagesBusy, key, err)
	case status == http.StatusNotFound:
		return nil, apperr.ErrNotFound
	case status != http.StatusOK:
		return nil, fmt.Errorf("%w (s3 get %s: HTTP %d)", apperr.ErrImagesBusy, key, status)
	}
	return out, nil
}

// DeleteObject removes one object (an upload read from incoming/); a missing one is no error.
func (b *Bucket) DeleteObject(ctx context.Context, key string) error {
	_, err := b.call(ctx, "delete", http.MethodDelete, key, nil, nil, http.StatusNotFound)
	return err
}

// Delete removes the objects of stored images (each path and its thumbnail); a missing object
// is no error.
func (b *Bucket) Delete(ctx context.Context, paths []string) error {
	for _, p := range paths {
		for _, key := range []string{p, domain.ImageThumbPath(p)} {
			if _, err := b.call(ctx, "delete", http.MethodDelete, key, nil, nil, http.StatusNotFound); err != nil {
				return err
			}
		}
	}
	return nil
}
