package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"
)

// writeEvalTables prints one aligned table per mode: a row per category and
// overall, a column per k, then the search latency.
func writeEvalTables(w io.Writer, results []*evalResult, ks []int) {
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "mode %s\n", r.Mode)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "category\tquestions\t")
		for _, k := range ks {
			fmt.Fprintf(tw, "recall@%d\t", k)
		}
		fmt.Fprintln(tw)
		for _, c := range []int{1, 2, 3, 4, 0} {
			fmt.Fprintf(tw, "%s\t%d\t", categoryName(c), r.Questions[c])
			for j := range ks {
				if r.Questions[c] == 0 {
					fmt.Fprint(tw, "-\t")
					continue
				}
				fmt.Fprintf(tw, "%.3f\t", r.Recall(c, j))
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		fmt.Fprintf(w, "search latency per question (embedding it included): p50 %s, p95 %s\n", fmtMillis(r.Percentile(50)), fmtMillis(r.Percentile(95)))
	}
}

func categoryName(c int) string {
	if c == 0 {
		return "overall"
	}
	return strconv.Itoa(c)
}

func fmtMillis(d time.Duration) string {
	return strconv.FormatFloat(millis(d), 'f', 2, 64) + " ms"
}

func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Millisecond)*100) / 100
}

// writeEvalJSON prints {"<mode>": {"<category>"|"overall": {"questions": n,
// "recall@k": r, ...}, "latency_ms": {"p50": ..., "p95": ...}}}, keys in
// reading order. A category without questions is left out.
func writeEvalJSON(w io.Writer, results []*evalResult, ks []int) error {
	var modes jsonObject
	for _, r := range results {
		var m jsonObject
		for _, c := range []int{1, 2, 3, 4, 0} {
			if r.Questions[c] == 0 {
				continue
			}
			row := jsonObject{{"questions", r.Questions[c]}}
			for j, k := range ks {
				row = append(row, jsonField{fmt.Sprintf("recall@%d", k), math.Round(r.Recall(c, j)*1e4) / 1e4})
			}
			m = append(m, jsonField{categoryName(c), row})
		}
		m = append(m, jsonField{"latency_ms", jsonObject{{"p50", millis(r.Percentile(50))}, {"p95", millis(r.Percentile(95))}}})
		modes = append(modes, jsonField{r.Mode, m})
	}
	data, err := json.MarshalIndent(modes, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// jsonObject is a JSON object that keeps its keys in the order given.
type jsonObject []jsonField

type jsonField struct {
	Key   string
	Value any
}

func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(f.Key)
		val, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
