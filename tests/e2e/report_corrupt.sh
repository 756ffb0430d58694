# hiercoll report rejects a corrupt profile with FILE:LINE: reason and exit status 1: every
# file of the profile, one defect at a time (wrong version line, missing column, bad number,
# rank out of range, inconsistent total, unsorted rows, truncated row, missing file).
. tests/e2e/cli_common.bash

mkdir "$TMP/good"
python3 tests/e2e/report_gen.py "$TMP/good" 8 2 || fail "generator"
fresh() { rm -rf "$TMP/p"; cp -r "$TMP/good" "$TMP/p"; }
# corrupt FILE LINE SED-SCRIPT REASON-REGEX
corrupt() {
    fresh
    sed -i "$3" "$TMP/p/$1"
    expect_status 1 "$HC" report "$TMP/p"
    expect_in "$TMP/err" "^$TMP/p/$1:$2: $4"
}
fresh
expect_status 0 "$HC" report "$TMP/p"

corrupt ranks.csv 1 '1s/v1/v9/' "expected '# hiercoll ranks v1'"
corrupt ranks.csv 2 '2s/,numa,/,noma,/' "header lacks column 'numa'"
corrupt ranks.csv 5 '5s/^2,/3,/' "rank 3 where rank 2 was expected"
corrupt ranks.csv 4 '4s/,1,0,1/,x,0,1/' "core: 'x' is not an integer"
corrupt ranks.csv 6 '6s/,[^,]*$//' "8 fields, the header has 9"
corrupt comm_bytes.csv 1 '1s/.*/sender,receiver/' "expected '# hiercoll comm_bytes v1'"
corrupt comm_bytes.csv 3 '3s/^0,/9,/' "sender: '9' is not an integer in 0..7"
corrupt comm_bytes.csv 3 '3s/,\([0-9]*\),0$/,1\1,0/' "total 1[0-9]* is not p2p \+ collective"
corrupt comm_bytes.csv 4 '3{h;d};4G' "pair 0,[0-9] out of order"
corrupt comm_msgs.csv 3 '3s/^0,[0-9]*,/0,-1,/' "receiver: '-1' is not an integer"
corrupt callsites.csv 3 '3s/0x[0-9a-f]*/1234/' "offset: '1234' is not a hexadecimal"
corrupt callsites.csv 3 '3s/MPI_Sendrecv/sendrecv/' "function: 'sendrecv' is not an MPI function"
corrupt mapping.txt 3 '3s/.*/ranks 9/' "'ranks' needs one count"
corrupt mapping.txt 6 '6s/core 0/core x/' "expected 'rank R host H core C'"

fresh
rm "$TMP/p/comm_bytes.csv"
expect_status 1 "$HC" report "$TMP/p"
expect_in "$TMP/err" "^$TMP/p/comm_bytes.csv: No such file or directory"
fresh
: >"$TMP/p/ranks.csv"
expect_status 1 "$HC" report "$TMP/p"
expect_in "$TMP/err" "^$TMP/p/ranks.csv:1: empty file"
# Optional files may be absent.
fresh
rm "$TMP/p/comm_msgs.csv" "$TMP/p/callsites.csv" "$TMP/p/mapping.txt"
expect_status 0 "$HC" report "$TMP/p"
echo "ok"
