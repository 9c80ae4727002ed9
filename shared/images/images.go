// Package images is what a write does with the image it brings: the multipart file `image` or
// the `image_url` fetched through the shared outbound guard (netguard: public addresses only,
// on every redirect; bounded in bytes and time), made a full picture and a thumbnail
// (imageproc) and put in the bucket under a path the image queue lists first (store), so that
// no object is ever left without a record or a queue item naming it. Families reach it
// through httpapi.Images; only the functions that serve images link it.
package images

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/imageproc"
	"github.com/lorekeep/lorekeep/shared/netguard"
)

// Fetch bounds of an image_url: the whole fetch (redirects included) within FetchTimeout, at
// most MaxRedirects redirects, at most imageproc.MaxBytes read.
const (
	FetchTimeout = 8 * time.Second
	MaxRedirects = 3
)

// Bucket holds the objects (imagestore.Bucket).
type Bucket interface {
	Put(ctx context.Context, key, contentType string, data []byte) error
	Delete(ctx context.Context, paths []string) error
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

// Service implements httpapi.Images.
type Service struct {
	bucket Bucket
	queue  Queue
	client *http.Client
	opts   Options
}

// New builds the service once per process.
func New(b Bucket, q Queue, o Options) *Service {
	return &Service{bucket: b, queue: q, client: netguard.Client(o.AllowLoopback, FetchTimeout, MaxRedirects), opts: o}
}

var _ httpapi.Images = (*Service)(nil)

// Read reads and stores the write's image (httpapi.Request.ReadImage calls it once a request).
func (s *Service) Read(r *httpapi.Request, in domain.Input) (httpapi.ImageChange, error) {
	if v, ok := in["image"]; ok && v != nil {
		data, err := uploaded(r, v)
		if err != nil {
			return httpapi.ImageChange{}, err
		}
		return s.store(r.Context(), r.Access.CampaignID, "image", data)
	}
	rd := domain.NewReader(in)
	f := rd.String("image_url", domain.MaxURLLength)
	if err := rd.Err(); err != nil {
		return httpapi.ImageChange{}, err
	}
	if !f.Set {
		return httpapi.ImageChange{}, nil
	}
	if !f.Present() || f.Value == "" {
		return httpapi.ImageChange{Set: true}, nil // null or "": no image
	}
	data, err := s.fetch(r.Context(), f.Value)
	if err != nil {
		return httpapi.ImageChange{}, err
	}
	return s.store(r.Context(), r.Access.CampaignID, "image_url", data)
}

// uploaded reads the multipart file `image`, bounded.
func uploaded(r *httpapi.Request, v any) ([]byte, error) {
	if !httpapi.IsFile(v) || r.MultipartForm == nil || len(r.MultipartForm.File["image"]) != 1 {
		return nil, apperr.Invalid("image", "The image must be one file (a multipart/form-data upload).")
	}
	fh := r.MultipartForm.File["image"][0]
	if fh.Size > imageproc.MaxBytes {
		return nil, tooLarge("image")
	}
	f, err := fh.Open()
	if err != nil {
		return nil, apperr.Invalid("image", "The image could not be read.")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, imageproc.MaxBytes+1))
	if err != nil {
		return nil, apperr.Invalid("image", "The image could not be read.")
	}
	return data, nil
}

func tooLarge(field string) error {
	return apperr.Invalid(field, "The "+domain.Label(field)+" must not be larger than "+strconv.Itoa(imageproc.MaxBytes>>10)+" KiB.")
}

// fetch GETs an image_url through the guard.
func (s *Service) fetch(ctx context.Context, raw string) ([]byte, error) {
	if msg := netguard.CheckURL(raw, s.opts.AllowHTTP, s.opts.AllowLoopback); msg != "" {
		return nil, apperr.Invalid("image_url", "The image url "+msg)
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, apperr.Invalid("image_url", "The image url must be a valid URL.")
	}
	req.Header.Set("Accept", "image/png, image/jpeg, image/gif, image/webp")
	req.Header.Set("User-Agent", "Lorekeep image fetch")
	resp, err := s.client.Do(req)
	if err != nil {
		if errors.Is(err, netguard.ErrForbiddenAddress) {
			return nil, apperr.Invalid("image_url", "The image url must point to a public internet address (redirects included).")
		}
		return nil, apperr.Invalid("image_url", "The image url could not be fetched.")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode/100 == 3 {
			return nil, apperr.Invalid("image_url", fmt.Sprintf("The image url redirects more than %d times.", MaxRedirects))
		}
		return nil, apperr.Invalid("image_url", fmt.Sprintf("The image url could not be fetched (HTTP %d).", resp.StatusCode))
	}
	if resp.ContentLength > imageproc.MaxBytes {
		return nil, tooLarge("image_url")
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, imageproc.MaxBytes+1))
	if err != nil {
		return nil, apperr.Invalid("image_url", "The image url could not be fetched.")
	}
	if len(data) > imageproc.MaxBytes {
		return nil, tooLarge("image_url")
	}
	return data, nil
}

// store checks and re-encodes data, then lists its path in the image queue and puts its two
// objects. A failed put leaves the path queued, due now.
func (s *Service) store(ctx context.Context, cid int64, field string, data []byte) (httpapi.ImageChange, error) {
	res, err := imageproc.Process(data)
	var p *imageproc.Problem
	if errors.As(err, &p) {
		return httpapi.ImageChange{}, apperr.Invalid(field, "The "+domain.Label(field)+" "+p.Text)
	}
	if err != nil {
		return httpapi.ImageChange{}, err
	}
	path, err := s.queue.ReserveImage(ctx, cid, res.Full.Ext)
	if err != nil {
		return httpapi.ImageChange{}, err
	}
	err = s.bucket.Put(ctx, path, res.Full.ContentType, res.Full.Data)
	if err == nil {
		err = s.bucket.Put(ctx, domain.ImageThumbPath(path), res.Thumb.ContentType, res.Thumb.Data)
	}
	if err != nil {
		s.Settle(ctx, cid, path, err)
		return httpapi.ImageChange{}, err
	}
	return httpapi.ImageChange{Set: true, Path: path}, nil
}

// Settle lets a stored path go when the write that was to hold it failed (after its retries):
// its queue item is made due unless a record holds it, and the sweeper deletes its objects.
func (s *Service) Settle(ctx context.Context, cid int64, path string, err error) {
	if err == nil || path == "" {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if derr := s.queue.DiscardImage(ctx, cid, path); derr != nil {
		slog.WarnContext(ctx, "image left for the sweeper", "path", path, "err", derr.Error())
	}
}
