package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
)

// progressEvery is how often a progress line is redrawn at most.
const progressEvery = 200 * time.Millisecond

// progress redraws one line on a terminal ("export: 1200/10000 documents,
// 0/56 history entries"); on anything else (a file, a pipe, a test's
// buffer) it writes nothing, so that logs and captured output stay clean.
type progress struct {
	w     io.Writer // nil when not a terminal
	verb  string
	last  time.Time
	drawn bool
}

func newProgress(w io.Writer, verb string) *progress {
	f, ok := w.(*os.File)
	if !ok || !isatty.IsTerminal(f.Fd()) {
		return &progress{}
	}
	return &progress{w: w, verb: verb}
}

// show redraws the line if the last one is old enough.
func (p *progress) show(docs, docsTotal, hist, histTotal int) {
	if p.w == nil || time.Since(p.last) < progressEvery {
		return
	}
	p.last = time.Now()
	p.drawn = true
	fmt.Fprintf(p.w, "\r%s: %d/%d documents, %d/%d history entries", p.verb, docs, docsTotal, hist, histTotal)
}

// done ends the line.
func (p *progress) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
