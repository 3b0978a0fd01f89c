# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# bash completion for iopsample(1): commands, each command's options, the
# values of those that take a fixed set (source names for --sources and
# --columns, formats, dialects), and files everywhere else.
_iopsample()
{
	local cur prev cmd
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local commands="run check probe events cat validate summary export compare verdict report schema"
	local sources="proc_io syscall_io perf_event block_io diskstats taskstats cgroup gpu waits offcpu net"
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $prev in
	--sources)
		# a comma-separated list: complete its last name
		local done=${cur%,*} last=${cur##*,}
		[ "$done" = "$cur" ] && done= || done=$done,
		COMPREPLY=($(compgen -P "$done" -W "$sources" -- "$last"))
		return ;;
	--columns)
		COMPREPLY=($(compgen -W "$sources" -- "$cur")); return ;;
	--dialect)
		COMPREPLY=($(compgen -W "duckdb spark dask" -- "$cur")); return ;;
	--format)
		if [ "$cmd" = compare ]; then
			COMPREPLY=($(compgen -W "text json" -- "$cur"))
		elif [ "$cmd" = verdict ]; then
			COMPREPLY=($(compgen -W "text json csv" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "csv jsonl" -- "$cur"))
		fi
		return ;;
	--grid|--window|--name|--set)
		return ;;
	--output-dir)
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		local opts=
		case $cmd in
		run|check) opts="--output-dir --name --set --quiet" ;;
		summary) opts="--raw" ;;
		export) opts="-o --output --grid --format --deployable-only --oracle-only --sources --include-incomplete --episodes" ;;
		compare) opts="-o --output --grid --pairs --by-episode --format" ;;
		verdict) opts="-o --output --window --format --deployable-only" ;;
		report) opts="-o --output" ;;
		schema) opts="--columns --dialect" ;;
		esac
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _iopsample iopsample
