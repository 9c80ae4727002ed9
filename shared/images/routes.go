package images

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// EntityStore is what Kanka's entity image routes need of the store (store.Store).
type EntityStore interface {
	httpapi.EntityReader
	SetEntityImage(ctx context.Context, cid, eid, by int64, path string) (*domain.Entity, error)
}

// entityImageJSON is Kanka's answer of entities/{id}/image (its entity and record ids and the
// image fields), under `data` as today's EntityImagesResource.
type entityImageJSON struct {
	EntityID       int64  `json:"entity_id"`
	ChildID        int64  `json:"child_id"`
	Image          string `json:"image"`
	ImageFull      string `json:"image_full"`
	ImageThumb     string `json:"image_thumb"`
	HasCustomImage bool   `json:"has_custom_image"`
}

// Register mounts Kanka's entities/{entity_id}/image (show, upload, remove) over the record of
// any owner kind; ImagesFunction serves it, with svc running the jobs in process. The entity
// is read ahead (1 round trip); a write reads the record and commits one transaction.
func Register(api *httpapi.API, st EntityStore, svc *Service) {
	const path = "/entities/{entity_id}/image"
	h := entityImages{st: st, svc: svc}
	ahead := httpapi.ReadAhead(store.ReadEntity, "entity_id", "")
	api.Handle("GET", path, h.show, ahead)
	api.Handle("POST", path, h.put, ahead)
	api.Handle("DELETE", path, h.remove, ahead)
}

type entityImages struct {
	st  EntityStore
	svc *Service
}

func reply(r *httpapi.Request, e *domain.Entity) httpapi.Reply {
	j := entityImageJSON{EntityID: e.ID, ChildID: e.ChildID}
	j.Image, j.ImageFull, j.ImageThumb, j.HasCustomImage = r.ImageLinks(e.ImagePath, e.ImageURL)
	return httpapi.One(j)
}

func (h entityImages) show(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return reply(r, e), nil
}

// put stores the multipart file `image` (Kanka until 2023) or `file` (today), or an
// `image_url`, and makes it the record's image. Kanka's `is_header` (a header image) is not
// kept by Lorekeep: refused rather than taken for the main image.
func (h entityImages) put(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	if v, ok := in["is_header"]; ok && v != nil && v != "" && v != "0" && v != false && v != "false" {
		return httpapi.Reply{}, apperr.Invalid("is_header", "Header images are not stored by this service; send the main image without is_header.")
	}
	var c httpapi.ImageChange
	r.AllowImageTime()
	switch {
	case in["image"] != nil:
		c, err = h.svc.ReadFile(r, "image", in["image"])
	case in["file"] != nil:
		c, err = h.svc.ReadFile(r, "file", in["file"])
	default:
		rd := domain.NewReader(in)
		f := rd.String("image_url", domain.MaxURLLength)
		rd.Required("image", f.Present() && f.Value != "")
		if err = rd.Err(); err == nil {
			c, err = h.svc.store(r.Context(), Job{CampaignID: r.Access.CampaignID, Field: "image_url", URL: f.Value})
		}
	}
	if err != nil {
		return httpapi.Reply{}, err
	}
	var out *domain.Entity
	rp, err := r.Commit(func() error {
		var err error
		out, err = h.st.SetEntityImage(r.Context(), e.CampaignID, e.ID, r.Access.UserID, c.Path)
		return err
	}, func() (httpapi.Reply, error) { return reply(r, out), nil })
	h.svc.Settle(r.Context(), e.CampaignID, c.Path, err)
	return rp, err
}

func (h entityImages) remove(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	var out *domain.Entity
	return r.Commit(func() error {
		var err error
		out, err = h.st.SetEntityImage(r.Context(), e.CampaignID, e.ID, r.Access.UserID, "")
		return err
	}, func() (httpapi.Reply, error) { return reply(r, out), nil })
}
