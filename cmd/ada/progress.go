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
	// counts are the last ones shown: done, total of documents and of
	// history entries.
	counts [4]int
}

func newProgress(w io.Writer, verb string) *progress {
	if !isTerminal(w) {
		return &progress{}
	}
	return &progress{w: w, verb: verb}
}

// isTerminal reports whether rw (a reader or a writer) is a terminal.
func isTerminal(rw any) bool {
	f, ok := rw.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// show redraws the line if the last one is old enough.
func (p *progress) show(docs, docsTotal, hist, histTotal int) {
	if p.w == nil {
		return
	}
	p.counts = [4]int{docs, docsTotal, hist, histTotal}
	if time.Since(p.last) >= progressEvery {
		p.draw()
	}
}

func (p *progress) draw() {
	p.last = time.Now()
	p.drawn = true
	c := p.counts
	fmt.Fprintf(p.w, "\r%s: %d/%d documents, %d/%d history entries", p.verb, c[0], c[1], c[2], c[3])
}

// done draws the last counts and ends the line.
func (p *progress) done() {
	if p.drawn {
		p.draw()
		fmt.Fprintln(p.w)
	}
}
