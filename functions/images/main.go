// Command images is ImagesFunction (DESIGN 13): the only Lambda that decodes images. The
// family functions invoke it with a job (an upload put under incoming/, or an image_url); it
// fetches or reads, decodes, bounds, strips, re-encodes, stores the picture and its thumbnail
// and answers their path. It also serves Kanka's entities/{entity_id}/image routes.
package main

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
)

func main() {
	api, st := lambdaapi.ColdStart(kinds.OpenFromEnv)
	b, err := imagestore.Open(imagestore.ConfigFromEnv(os.Getenv))
	if err != nil {
		slog.Error("configure the image bucket", "err", err)
		os.Exit(1)
	}
	w := imagework.New(b, st, imagework.Options{})
	svc := images.New(w, st)
	api.SetImages(svc)
	images.Register(api, st, svc)
	lambda.Start(imagework.LambdaHandler(lambdaapi.Handler(api), w))
}
