package tables

import (
	"strconv"
	"strings"
)

// The paper's numbers, copied from its tables, row by
// row in the column order of our tables, as printed. They are the paper's
// claims, printed beside our measurements and labelled "paper"; they are
// never used as results.

// paperHints is Table 1, epochs to converge: palindrome, anbn, anbncbmam,
// anmbncm, each W1 (2nd order) then W2 (3rd order).
var paperHints = map[string][]string{
	"NNPDA w/o hints":            {"100", "81", "280", "215", "NA", "NA", "NA", "NA"},
	"NNPDA w/ dead neuron hints": {"92", "83", "212", "192", "485", "145", "250", "195"},
	"NSPDA w/o hints":            {"91", "79", "221", "192", "488", "159", "339", "293"},
	"NSPDA w/ Hint #1":           {"80", "75", "190", "170", "410", "140", "240", "160"},
	"NSPDA w/ Hint #2":           {"70", "72", "150", "138", "389", "134", "222", "148"},
}

// paperIncremental is Table 2, characters to converge, M1 then M2 per
// language.
var paperIncremental = map[string][]string{
	"Standard": {"5699", "5912", ">200000", ">210000", ">240000", ">233000", ">320000", ">315000"},
	"IL":       {"2678", "2552", "108200", "104556", "192001", "192551", "222171", "222144"},
	"2-IL":     {"2001", "2199", "9899", "10001", "130192", "129998", "177189", "177190"},
}

// paperNoise is Table 3, % error up to T = 60, M1 then M2 per language.
var paperNoise = map[string][]string{
	"w/o reg": {"4.55", "2.99", "1.28", "1.55", "5.51", "4.19", "2.18", "2.00"},
	"w reg":   {"0.00", "0.00", "0.06", "0.01", "0.99", "0.00", "0.09", "0.00"},
}

// paperAlgorithms is the appendix table of learning algorithms, % error up
// to T = 60, M1 then M2 per language.
var paperAlgorithms = map[string][]string{
	"BPTT":  {"2.02", "1.99", "2.23", "2.55", "2.99", "2.79", "2.99", "1.59"},
	"TBPTT": {"2.59", "2.81", "1.05", "1.29", "2.97", "2.02", "1.58", "1.11"},
	"RTRL":  {"0.02", "0.19", "0.09", "0.10", "1.85", "0.07", "0.09", "0.01"},
	"UORO":  {"0.00", "0.00", "0.06", "0.01", "0.99", "0.00", "0.09", "0.00"},
}

// paperComparison is Table 4 with its appendix rows: train then test60 %
// error for palindrome, anbn, anbncbmam, anmbncm and Dyck-2.
var paperComparison = map[string][]string{
	"RNN (elman)":                  trainTest("78.2", "74.11", "83.33", "73.69", "30.72", "99.96"),
	"LSTM (lstm)":                  trainTest("12.58", "13.26", "14.22", "10.56", "48.92", "97.88"),
	"LSTM-p (lstm-peephole)":       trainTest("8.69", "11.25", "13.99", "12.88", "49.68", "99.00"),
	"GRU (gru)":                    trainTest("14.99", "14.89", "19.22", "14.00", "43.21", "98.70"),
	"Stack RNN 40+10 (stack-rnn)":  trainTest("4.99", "3.01", "34.19", "58.66", "10.25", "9.38"),
	"Stack RNN 40+10 + rounding":   trainTest("0.09", "0.89", "1.01", "0.79", "4.03", "3.968"),
	"listRNN 40+5 (list-rnn)":      trainTest("0.39", "2.29", "19.63", "1.27", "4.89", "7.45"),
	"MI-RNN (mi-rnn, appendix)":    trainTest("75.69", "70.26", "76.69", "73.01", "29.58", "99.92"),
	"MI-LSTM (mi-lstm, appendix)":  trainTest("9.99", "10.86", "13.55", "14.22", "47.83", "99.80"),
	"MI-GRU (mi-gru, appendix)":    trainTest("16.22", "13.29", "20.02", "14.83", "42.88", "99.20"),
	"2nd order RNN (second-order)": trainTest("9.26", "8.51", "17.52", "11.17", "27.89", "37.42"),
	"2nd order RNN reg":            trainTest("1.88", "2.09", "2.19", "0.99", "21.69", "27.59"),
	"NNPDA (nnpda)":                trainTest("7.00", "15.25", "17.49", "55.28", "5.96", "29.21"),
	"NNPDA reg":                    trainTest("4.28", "14.20", "13.00", "41.01", "5.62", "27.09"),
	"NSPDA M1":                     trainTest("0.00", "0.06", "0.99", "0.09", "0.58", "2.58"),
	"NSPDA M2":                     trainTest("0.00", "0.01", "0.00", "0.00", "0.01", "0.88"),
}

// trainTest lays out a Table 4 row: the four non-Dyck test errors (train
// error 0.00 in the paper), then Dyck-2's train and test errors.
func trainTest(pal, anbn, anbncbmam, anmbncm, dyckTrain, dyckTest string) []string {
	return []string{"0.00", pal, "0.00", anbn, "0.00", anbncbmam, "0.00", anmbncm, dyckTrain, dyckTest}
}

// paperProgrammed is the appendix table of programmed NSPDAs: 0.0% at n =
// 60, 480, 960 on the four languages; the paper has no Dyck-2 column.
var paperProgrammed = map[string][]string{
	"2nd order NSPDA": {"0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "", "", ""},
	"3rd order NSPDA": {"0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "", "", ""},
}

// paperAt returns the paper's value of row at column i, "" if it has none.
func paperAt(table map[string][]string, row string, i int) string {
	if v := table[row]; i < len(v) {
		return v[i]
	}
	return ""
}

// PaperNumber parses a paper value: its number, and whether it is one ("NA"
// and "" are not; ">200000" is the bound 200000, marked as a bound).
func PaperNumber(s string) (v float64, bound, ok bool) {
	bound = strings.HasPrefix(s, ">")
	v, err := strconv.ParseFloat(strings.TrimPrefix(s, ">"), 64)
	return v, bound, err == nil
}
