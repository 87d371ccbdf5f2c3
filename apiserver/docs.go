package apiserver

import (
	"embed"
	"mime"
	"path"

	"github.com/valyala/fasthttp"

	"github.com/ada-chat/ada/core"
)

//go:embed openapi.json
var openapiJSON []byte

//go:embed docs/*
var docsFS embed.FS

func (s *Server) handleOpenAPI(r *request) error {
	r.SetContentType("application/json")
	r.SetBody(openapiJSON)
	return nil
}

func (s *Server) handleDocs(r *request) error {
	if len(r.Path()) > len("/docs") {
		// "/docs/": the page's relative asset URLs need the canonical path.
		// A relative Location: fasthttp's Redirect makes it absolute from
		// the request, http:// behind a TLS proxy.
		r.Response.Header.Set("Location", "/docs")
		r.SetStatusCode(fasthttp.StatusPermanentRedirect)
		return nil
	}
	return s.serveDocsFile(r, "index.html")
}

func (s *Server) handleDocsAsset(r *request) error {
	return s.serveDocsFile(r, pathParam(r, "asset"))
}

func (s *Server) serveDocsFile(r *request, name string) error {
	data, err := docsFS.ReadFile("docs/" + path.Base(name))
	if err != nil {
		return core.Errorf(core.KindNotFound, "no documentation asset %q", name)
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	r.SetContentType(ct)
	r.Response.Header.Set("Cache-Control", "public, max-age=3600")
	r.SetBody(data)
	return nil
}
