// Package imagework is ImagesFunction's work (DESIGN 13): it takes an images.Job, reads the
// upload's bytes (from incoming/ in the bucket when a family function invoked it) or fetches
// the image_url through the shared outbound guard (netguard: public addresses only, on every
// redirect; bounded in bytes and time), makes a full picture and a thumbnail (imageproc) and
// puts them under a path the image queue lists first (store), so that no object is ever left
// without a record or a queue item naming it. It is the only package of the functions that
// links image decoding; deploy/ asserts that no family function links it.
package imagework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/images/imageproc"
	"github.com/lorekeep/lorekeep/shared/netguard"
)

// Fetch bounds of an image_url: the whole fetch (redirects included) within FetchTimeout, at
// most MaxRedirects redirects, at most imageproc.MaxBytes read.
const (
	FetchTimeout = 8 * time.Second
	MaxRedirects = 3
)

// WorkTimeout bounds a job: the fetch or the upload's read, decoding, re-encoding, the puts.
const WorkTimeout = 20 * time.Second

// Bucket holds the objects (imagestore.Bucket).
type Bucket interface {
	Put(ctx context.Context, key, contentType string, data []byte) error
	Get(ctx context.Context, key string) ([]byte, error)
	DeleteObject(ctx context.Context, key string) error
}

// Queue lists object paths until a record holds them (store.Store).
type Queue interface {
	ReserveImage(ctx context.Context, cid int64, ext string) (string, error)
	DiscardImage(ctx context.Context, cid int64, path string) error
}

// Options are for local use only: a fetch may use http, and reach loopback addresses (never
// private, link-local or metadata ones).
type Options struct {
	AllowHTTP, AllowLoopback bool
}

// Worker implements images.Processor.
type Worker struct {
	bucket Bucket
	queue  Queue
	client *http.Client
	opts   Options
}

// New builds the worker once per process.
func New(b Bucket, q Queue, o Options) *Worker {
	return &Worker{bucket: b, queue: q, client: netguard.Client(o.AllowLoopback, FetchTimeout, MaxRedirects), opts: o}
}

var _ images.Processor = (*Worker)(nil)

// Process reads or fetches the job's image, checks and re-encodes it, then lists its path in
// the image queue and puts its two objects. A failed put leaves the path queued, due now.
func (w *Worker) Process(ctx context.Context, j images.Job) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, WorkTimeout)
	defer cancel()
	if j.Field == "" {
		j.Field = "image"
	}
	data, err := w.read(ctx, j)
	if err != nil {
		return "", err
	}
	res, err := process(data)
	var p *imageproc.Problem
	if errors.As(err, &p) {
		return "", apperr.Invalid(j.Field, "The "+domain.Label(j.Field)+" "+p.Text)
	}
	if err != nil {
		return "", err
	}
	path, err := w.queue.ReserveImage(ctx, j.CampaignID, domain.ImageSizedExt(res.Full.Width, res.Full.Height, res.Full.Ext))
	if err != nil {
		return "", err
	}
	err = w.bucket.Put(ctx, path, res.Full.ContentType, res.Full.Data)
	if err == nil {
		err = w.bucket.Put(ctx, domain.ImageThumbPath(path), res.Thumb.ContentType, res.Thumb.Data)
	}
	if err != nil {
		if derr := w.queue.DiscardImage(context.WithoutCancel(ctx), j.CampaignID, path); derr != nil {
			slog.WarnContext(ctx, "image left for the sweeper", "path", path, "err", derr.Error())
		}
		return "", err
	}
	return path, nil
}

// processFile is imageproc.Process (a test makes it panic).
var processFile = imageproc.Process

// process is processFile with a panic (a decoder's bug on a crafted file) made a problem of
// the file: the request answers a 422, and nothing was reserved or put yet.
func process(data []byte) (res imageproc.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			slog.Error("image processing panicked", "panic", fmt.Sprint(v))
			err = &imageproc.Problem{Text: "could not be processed; send another image."}
		}
	}()
	return processFile(data)
}

// read answers the job's bytes: given, read from incoming/ (then deleted; the bucket's
// lifecycle rule expires what a failed delete leaves), or fetched.
func (w *Worker) read(ctx context.Context, j images.Job) ([]byte, error) {
	switch {
	case j.Data != nil:
		return j.Data, nil
	case j.Incoming != "":
		if !strings.HasPrefix(j.Incoming, images.IncomingPrefix(j.CampaignID)) {
			return nil, fmt.Errorf("imagework: incoming object %q is not of campaign %d", j.Incoming, j.CampaignID)
		}
		data, err := w.bucket.Get(ctx, j.Incoming)
		if errors.Is(err, apperr.ErrNotFound) {
			return nil, apperr.Invalid(j.Field, "The "+domain.Label(j.Field)+" upload took too long; send it again.")
		}
		if err != nil {
			return nil, err
		}
		if derr := w.bucket.DeleteObject(ctx, j.Incoming); derr != nil {
			slog.WarnContext(ctx, "incoming image left for the lifecycle rule", "key", j.Incoming, "err", derr.Error())
		}
		if len(data) > imageproc.MaxBytes {
			return nil, images.TooLarge(j.Field)
		}
		return data, nil
	case j.URL != "":
		return w.fetch(ctx, j.Field, j.URL)
	}
	return nil, apperr.Invalid(j.Field, "The "+domain.Label(j.Field)+" is missing.")
}

// fetch GETs an image_url through the guard.
func (w *Worker) fetch(ctx context.Context, field, raw string) ([]byte, error) {
	label := "The " + domain.Label(field)
	if msg := netguard.CheckURL(raw, w.opts.AllowHTTP, w.opts.AllowLoopback); msg != "" {
		return nil, apperr.Invalid(field, label+" "+msg)
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, apperr.Invalid(field, label+" must be a valid URL.")
	}
	req.Header.Set("Accept", "image/png, image/jpeg, image/gif, image/webp")
	req.Header.Set("User-Agent", "Lorekeep image fetch")
	resp, err := w.client.Do(req)
	if err != nil {
		if errors.Is(err, netguard.ErrForbiddenAddress) {
			return nil, apperr.Invalid(field, label+" must point to a public internet address (redirects included).")
		}
		return nil, apperr.Invalid(field, label+" could not be fetched.")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode/100 == 3 {
			return nil, apperr.Invalid(field, fmt.Sprintf("%s redirects more than %d times.", label, MaxRedirects))
		}
		return nil, apperr.Invalid(field, label+" could not be fetched (HTTP "+strconv.Itoa(resp.StatusCode)+").")
	}
	if resp.ContentLength > imageproc.MaxBytes {
		return nil, images.TooLarge(field)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, imageproc.MaxBytes+1))
	if err != nil {
		return nil, apperr.Invalid(field, label+" could not be fetched.")
	}
	if len(data) > imageproc.MaxBytes {
		return nil, images.TooLarge(field)
	}
	return data, nil
}
