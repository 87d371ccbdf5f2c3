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

// writeChatTables prints one table per setting: the share of evidence in
// the prompt per category and overall, then the prompt's size and the time
// to build it.
func writeChatTables(w io.Writer, results []*chatResult) {
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "setting %s\n", r.Setting)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "category\tquestions\tevidence in prompt\t")
		for _, c := range []int{1, 2, 3, 4, 0} {
			if r.Questions[c] == 0 {
				fmt.Fprintf(tw, "%s\t0\t-\t\n", categoryName(c))
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t\n", categoryName(c), r.Questions[c], r.Mean(c))
		}
		tw.Flush()
		fmt.Fprintf(w, "prompt: median %d characters (p95 %d); built in p50 %s, p95 %s\n",
			medianInt(r.PromptChars), percentileInt(r.PromptChars, 95), fmtMillis(percentile(r.Latencies, 50)), fmtMillis(percentile(r.Latencies, 95)))
	}
}

// writeChatJSON prints {"<setting>": {"<category>"|"overall": {"questions":
// n, "evidence_in_prompt": share}, "prompt_chars": {"median", "p95"},
// "latency_ms": {"p50", "p95"}}, "replay_seconds": s}.
func writeChatJSON(w io.Writer, results []*chatResult, replay time.Duration) error {
	var out jsonObject
	for _, r := range results {
		var m jsonObject
		for _, c := range []int{1, 2, 3, 4, 0} {
			if r.Questions[c] == 0 {
				continue
			}
			m = append(m, jsonField{categoryName(c), jsonObject{{"questions", r.Questions[c]}, {"evidence_in_prompt", math.Round(r.Mean(c)*1e4) / 1e4}}})
		}
		m = append(m, jsonField{"prompt_chars", jsonObject{{"median", medianInt(r.PromptChars)}, {"p95", percentileInt(r.PromptChars, 95)}}})
		m = append(m, jsonField{"latency_ms", jsonObject{{"p50", millis(percentile(r.Latencies, 50))}, {"p95", millis(percentile(r.Latencies, 95))}}})
		out = append(out, jsonField{r.Setting, m})
	}
	out = append(out, jsonField{"replay_seconds", math.Round(replay.Seconds()*100) / 100})
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// percentileInt is the nearest-rank p-th percentile of xs (0 for none).
func percentileInt(xs []int, p float64) int {
	ds := make([]time.Duration, len(xs))
	for i, x := range xs {
		ds[i] = time.Duration(x)
	}
	return int(percentile(ds, p))
}
