// Package images is what a write does with the image it brings, on the side of the functions
// that serve records: it reads the multipart file `image` (bounded) or the `image_url`, and
// hands it to a Processor, which decodes, bounds, strips, re-encodes and stores it, and answers
// the stored path. The family functions use Invoker, which puts the upload's raw bytes under
// incoming/ in the bucket and invokes ImagesFunction (DESIGN 13): image decoding lives only
// there (package imagework), never in a family function. `lorekeep serve` and the tests wire
// an imagework.Worker in process. Nothing here decodes an image.
package images

import (
	"context"
	"io"
	"log/slog"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// MaxBytes bounds an image file, uploaded or fetched.
const MaxBytes = 4 << 20

// Job is one image to store for campaign CampaignID: the upload's bytes (Data; Incoming once
// an Invoker has put them in the bucket) or the address URL to fetch. Field is the body field
// that brought it, which a bad image's 422 names.
type Job struct {
	CampaignID int64  `json:"campaign_id"`
	Field      string `json:"field"`
	Data       []byte `json:"-"`
	Incoming   string `json:"incoming,omitempty"`
	URL        string `json:"url,omitempty"`
}

// Processor stores a Job's image and answers its path (store.ReserveImage lists it in the
// image queue); a bad image is an apperr.Invalid naming Job.Field.
type Processor interface {
	Process(ctx context.Context, j Job) (string, error)
}

// Queue lets a stored path go when its write failed (store.Store).
type Queue interface {
	DiscardImage(ctx context.Context, cid int64, path string) error
}

// Service implements httpapi.Images over a Processor.
type Service struct {
	proc  Processor
	queue Queue
}

// New builds the service once per process.
func New(p Processor, q Queue) *Service { return &Service{proc: p, queue: q} }

var _ httpapi.Images = (*Service)(nil)

// Read reads and stores the write's image (httpapi.Request.ReadImage calls it once a request).
func (s *Service) Read(r *httpapi.Request, in domain.Input) (httpapi.ImageChange, error) {
	if v, ok := in["image"]; ok && v != nil {
		data, err := Uploaded(r, "image", v)
		if err != nil {
			return httpapi.ImageChange{}, err
		}
		return s.store(r.Context(), Job{CampaignID: r.Access.CampaignID, Field: "image", Data: data})
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
	return s.store(r.Context(), Job{CampaignID: r.Access.CampaignID, Field: "image_url", URL: f.Value})
}

// ReadFile stores the multipart file field (Kanka's entities/{id}/image).
func (s *Service) ReadFile(r *httpapi.Request, field string, v any) (httpapi.ImageChange, error) {
	data, err := Uploaded(r, field, v)
	if err != nil {
		return httpapi.ImageChange{}, err
	}
	return s.store(r.Context(), Job{CampaignID: r.Access.CampaignID, Field: field, Data: data})
}

func (s *Service) store(ctx context.Context, j Job) (httpapi.ImageChange, error) {
	path, err := s.proc.Process(ctx, j)
	if err != nil {
		return httpapi.ImageChange{}, err
	}
	return httpapi.ImageChange{Set: true, Path: path}, nil
}

// Uploaded reads the multipart file field (its input value v), bounded by MaxBytes.
func Uploaded(r *httpapi.Request, field string, v any) ([]byte, error) {
	if !httpapi.IsFile(v) || r.MultipartForm == nil || len(r.MultipartForm.File[field]) != 1 {
		return nil, apperr.Invalid(field, "The "+domain.Label(field)+" must be one file (a multipart/form-data upload).")
	}
	fh := r.MultipartForm.File[field][0]
	if fh.Size > MaxBytes {
		return nil, TooLarge(field)
	}
	f, err := fh.Open()
	if err != nil {
		return nil, apperr.Invalid(field, "The "+domain.Label(field)+" could not be read.")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil || len(data) > MaxBytes {
		return nil, TooLarge(field)
	}
	return data, nil
}

// TooLarge is the 422 of a file over MaxBytes.
func TooLarge(field string) error {
	return apperr.Invalid(field, "The "+domain.Label(field)+" must not be larger than "+strconv.Itoa(MaxBytes>>10)+" KiB.")
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
