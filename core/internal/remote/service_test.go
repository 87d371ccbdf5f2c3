package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/ada-chat/ada/core"
)

var testService = Service{
	Failed: "lookup failed", Canceled: "lookup was canceled", Name: "the service", Expect: "JSON",
	Why: func(code int) string {
		if code == http.StatusNotFound {
			return "the service does not know it"
		}
		return ""
	},
}

// TestServiceGetJSON runs GetJSON against a real server for each answer
// the specialists word differently.
func TestServiceGetJSON(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		kind    core.ErrorKind
		want    string // "" for success
	}{
		{"ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"v": 7}`) }, 0, ""},
		{"own reason", statusHandler(404), core.KindUpstream, "lookup failed: the service does not know it (HTTP 404)"},
		{"rate limited", statusHandler(429), core.KindUpstream, "lookup failed: the service is rate-limiting requests (HTTP 429)"},
		{"server error", statusHandler(502), core.KindUpstream, "lookup failed: the service had an internal error (HTTP 502)"},
		{"other status", statusHandler(418), core.KindUpstream, "lookup failed: the service answered with an unexpected status (HTTP 418)"},
		{"malformed", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<html>`) }, core.KindUpstream, "lookup failed: the service sent a malformed answer (not JSON)"},
		{"too long", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"v": 7, "pad": "`+strings.Repeat("x", 100)+`"}`)
		}, core.KindUpstream, "lookup failed: the service sent a malformed answer (not JSON)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Accept") != "application/json" {
					t.Errorf("header Accept = %q", r.Header.Get("Accept"))
				}
				tc.handler(w, r)
			}))
			defer srv.Close()
			var out struct{ V int }
			err := testService.GetJSON(context.Background(), srv.Client(), srv.URL+"/x?q=secret", http.Header{"Accept": {"application/json"}}, &out, 64)
			if tc.want == "" {
				if err != nil || out.V != 7 {
					t.Fatalf("got %+v, %v", out, err)
				}
				return
			}
			if core.KindOf(err) != tc.kind || core.SafeMessage(err) != tc.want {
				t.Fatalf("got kind %v, %q; want kind %v, %q", core.KindOf(err), core.SafeMessage(err), tc.kind, tc.want)
			}
		})
	}
}

func statusHandler(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", code) }
}

// TestServiceTransport: a context's end is told from an unreachable
// service whichever of ctx and err says so, and the request's query (the
// user's words) never reaches the cause that is logged.
func TestServiceTransport(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithTimeout(context.Background(), 0)
	defer cancel2()
	urlErr := func(cause error) error {
		return &url.Error{Op: "Get", URL: "http://u:p@h:1/search?q=secret", Err: cause}
	}
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		kind core.ErrorKind
		want string
	}{
		{"refused", context.Background(), urlErr(syscall.ECONNREFUSED), core.KindUpstream, "lookup failed: the service could not be reached"},
		{"client timeout", context.Background(), urlErr(context.DeadlineExceeded), core.KindUpstream, "lookup failed: the service did not answer in time"},
		{"ctx deadline", expired, urlErr(errors.New("read: closed")), core.KindUpstream, "lookup failed: the service did not answer in time"},
		{"ctx cancelled", cancelled, urlErr(errors.New("read: closed")), core.KindCanceled, "lookup was canceled"},
		{"err cancelled", context.Background(), urlErr(context.Canceled), core.KindCanceled, "lookup was canceled"},
	}
	for _, tc := range cases {
		err := testService.Transport(tc.ctx, tc.err)
		if core.KindOf(err) != tc.kind || core.SafeMessage(err) != tc.want {
			t.Errorf("%s: got kind %v, %q; want kind %v, %q", tc.name, core.KindOf(err), core.SafeMessage(err), tc.kind, tc.want)
		}
		if s := err.Error(); strings.Contains(s, "secret") || strings.Contains(s, "u:p") || !strings.Contains(s, "http://h:1/search") {
			t.Errorf("%s: cause %q must keep the address without query or credentials", tc.name, s)
		}
	}
}
