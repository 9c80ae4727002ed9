package images

import (
	"log/slog"
	"os"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/images/imagestore"
)

// Serve gives api the images of a family Lambda: uploads put in the bucket IMAGE_BUCKET under
// incoming/, every job run by the function IMAGES_FUNCTION, paths listed in q. A bucket or
// function that cannot be configured ends the process (Lambda reports the failed init).
func Serve(api *httpapi.API, q Queue) {
	b, err := imagestore.Open(imagestore.ConfigFromEnv(os.Getenv))
	if err != nil {
		slog.Error("configure the image bucket", "err", err)
		os.Exit(1)
	}
	inv, err := NewInvoker(b, InvokeConfigFromEnv(os.Getenv))
	if err != nil {
		slog.Error("configure the image function", "err", err)
		os.Exit(1)
	}
	api.SetImages(New(inv, q))
}
