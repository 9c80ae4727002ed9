package httpapi

import (
	"context"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// MaxUploadBytes bounds a multipart body, the only kind that carries a file (an image of at
// most 4 MiB and its form fields). Base64-encoded by API Gateway it stays within Lambda's 6 MB
// payload.
const MaxUploadBytes = 4<<20 + 256<<10

// ImageChange is what a write does to a record's image: nothing (Set false), clear it (Path
// ""), or hold the stored image Path.
type ImageChange struct {
	Set  bool
	Path string
}

// Images reads and stores the image a write brings (package images, with S3 and image
// decoding); only the functions that serve images link one (Options.Images).
type Images interface {
	// Read reads the write's `image` upload or `image_url`, once per request however often the
	// write is retried, and stores it; a bad image is a 422 naming the field.
	Read(r *Request, in domain.Input) (ImageChange, error)
	// Settle reports the outcome of the write that held path: a failed one lets it go.
	Settle(ctx context.Context, cid int64, path string, err error)
}

// ImageTimeout is the deadline of a request from the moment it reads an image: the upload's
// put, the image function's work (20 s at most) and the write after it, within the family
// functions' 29 s. Every other request keeps Options.Timeout (1.8 s).
const ImageTimeout = 24 * time.Second

// AllowImageTime gives the request ImageTimeout from now (never less than it had), for a
// write that stores an image.
func (r *Request) AllowImageTime() {
	if d, ok := r.Context().Deadline(); !ok || time.Until(d) >= ImageTimeout || r.imageDeadline != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), ImageTimeout)
	r.Request = r.Request.WithContext(ctx)
	r.imageDeadline = cancel
}

// ReadImage is Options.Images' Read, once a request (a retried write reuses what it stored),
// or a 422 when the write brings an image to a function that serves none.
func (r *Request) ReadImage(in domain.Input) (ImageChange, error) {
	if r.image == nil {
		c, err := r.readImage(in)
		r.image = &memoImage{c, err}
	}
	return r.image.c, r.image.err
}

type memoImage struct {
	c   ImageChange
	err error
}

// ApplyImage applies the write's image to o; an Apply calls it last, once every other rule
// passed, so that nothing is stored for a write refused anyway.
func ApplyImage(r *Request, in domain.Input, o *domain.Owner) error {
	c, err := r.ReadImage(in)
	if err != nil {
		return err
	}
	if c.Set {
		o.ImagePath, o.ImageURL = c.Path, ""
	}
	return nil
}

// settleImage tells Options.Images how the write that may hold the request's new image ended.
func (r *Request) settleImage(err error) {
	if r.image != nil && r.image.c.Path != "" && r.images != nil {
		r.images.Settle(r.Context(), r.Access.CampaignID, r.image.c.Path, err)
	}
}

func (r *Request) readImage(in domain.Input) (ImageChange, error) {
	if r.images == nil {
		for _, name := range []string{"image", "image_url"} {
			if _, ok := in[name]; ok {
				return ImageChange{}, apperr.Invalid(name, "The "+domain.Label(name)+" cannot be stored here: no image bucket is configured.")
			}
		}
		return ImageChange{}, nil
	}
	if v, ok := in["image"]; ok && v != nil || in["image_url"] != nil && in["image_url"] != "" {
		r.AllowImageTime()
	}
	return r.images.Read(r, in)
}

// ImageLinks are a record's image fields as Kanka shows them: `image` the stored path,
// `image_full` and `image_thumb` URLs under Options.ImageBaseURL. A record with only an
// image address stored before images were fetched (layout 3) shows that address in all three
// and no custom image.
func (r *Request) ImageLinks(path, legacyURL string) (image, full, thumb string, custom bool) {
	if path == "" {
		return legacyURL, legacyURL, legacyURL, false
	}
	base := strings.TrimSuffix(r.imageBase, "/")
	return path, base + "/" + path, base + "/" + domain.ImageThumbPath(path), true
}
