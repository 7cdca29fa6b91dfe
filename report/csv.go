package report

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteCSV writes report.csv in long format, one row per variant × run ×
// metric: variant,run,valid,metric,value. value is empty for null,
// true/false for bools, a plain decimal otherwise (milliseconds unrounded).
// Invalid runs are included with valid=false.
func WriteCSV(w io.Writer, res *Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"variant", "run", "valid", "metric", "value"}); err != nil {
		return err
	}
	rows := res.Rows()
	for _, v := range res.Variants {
		for i := range v.Runs {
			r := &v.Runs[i]
			run, valid := strconv.Itoa(r.Meta.Run), strconv.FormatBool(r.Valid)
			for _, d := range rows {
				if err := cw.Write([]string{v.Label, run, valid, d.Name, formatRaw(d.Kind, d.Get(&r.Metrics))}); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSpreadCSV writes spread.csv, one row per variant × metric over the
// valid runs: variant,metric,min,median,max,nulls,n,true. min/median/max are
// empty when every run was null and for bools; true is the number of runs
// where a bool was true (empty for other kinds).
func WriteSpreadCSV(w io.Writer, res *Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"variant", "metric", "min", "median", "max", "nulls", "n", "true"}); err != nil {
		return err
	}
	rows := res.Rows()
	for i := range res.Variants {
		v := &res.Variants[i]
		for _, s := range v.Spreads(rows) {
			t := ""
			if s.True != nil {
				t = strconv.Itoa(*s.True)
			}
			rec := []string{v.Label, s.Metric, fnum(s.Min), fnum(s.Median), fnum(s.Max),
				strconv.Itoa(s.Nulls), strconv.Itoa(s.N), t}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func fnum(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}
