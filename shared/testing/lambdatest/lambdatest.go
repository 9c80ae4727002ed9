// Package lambdatest serves Lambda's Invoke API for one function on a local HTTP server, as
// AWS answers it, so that a test drives the real invoke protocol (images.Invoker) against a
// function's real handler.
package lambdatest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Handler is a function's handler as lambda.Start takes it.
type Handler func(ctx context.Context, payload json.RawMessage) (any, error)

// Server is the local Invoke API of function name; Calls counts its invocations.
type Server struct {
	*httptest.Server
	Calls atomic.Int64
}

// Serve starts it (closed when the test ends). A request must be a RequestResponse invoke
// signed with Signature V4 for the lambda service; a handler error or panic is a function
// error (200, X-Amz-Function-Error: Unhandled), as on AWS.
func Serve(t testing.TB, name string, h Handler) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch {
		case r.Method != http.MethodPost || r.URL.Path != "/2015-03-31/functions/"+name+"/invocations":
			w.Header().Set("X-Amzn-ErrorType", "ResourceNotFoundException")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"Type":"User","message":"Function not found"}`)
			return
		case !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") || !strings.Contains(auth, "/lambda/aws4_request") ||
			r.Header.Get("X-Amz-Date") == "" || r.Header.Get("X-Amz-Invocation-Type") != "RequestResponse":
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"message":"The request signature we calculated does not match the signature you provided."}`)
			return
		}
		s.Calls.Add(1)
		payload, err := io.ReadAll(io.LimitReader(r.Body, 6<<20))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		out, err := func() (out any, err error) {
			defer func() {
				if v := recover(); v != nil { // aws-lambda-go reports a panic as a function error
					err = fmt.Errorf("panic: %v", v)
				}
			}()
			return h(r.Context(), payload)
		}()
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.Header().Set("X-Amz-Function-Error", "Unhandled")
			_ = json.NewEncoder(w).Encode(map[string]string{"errorMessage": err.Error(), "errorType": "errorString"})
			return
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(s.Close)
	return s
}
