# bash completion for kmemtrace                                -*- shell-script -*-
#
# Installed as share/bash-completion/completions/kmemtrace, or sourced
# from ~/.bashrc.  Everything it offers comes from the kmemtrace being
# completed, so it follows that binary's own tables and cannot drift:
#
#	kmemtrace --list-cmds                  the commands
#	kmemtrace <cmd> --list-opts            their options, "<arg>" after
#	                                       those that take a value
#	kmemtrace <cmd> --list-values <opt>    the words an option takes
#	                                       (report -s: the sort keys)
#
# Lists of words separated by commas (-s frag,hit) are completed word by
# word; pageowner's --sort keys may start with + or -.  Where there is
# nothing to offer (a file, a number), bash completes file names.

_kmemtrace()
{
	local kmt=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
	local prev= cmd= cmdi=0 i opts argh values head last

	COMPREPLY=()
	# the command: the first word after kmemtrace that is no option
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; cmdi=$i; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$("$kmt" --list-cmds 2>/dev/null) -h --help --version" -- "$cur"))
		return 0
	fi
	if [[ $cmd == help ]]; then
		((COMP_CWORD == cmdi + 1)) &&
			COMPREPLY=($(compgen -W "$("$kmt" --list-cmds 2>/dev/null)" -- "$cur"))
		return 0
	fi
	# after "--": the command record or stat runs, and its arguments
	for ((i = cmdi + 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			if declare -F _command_offset >/dev/null; then
				_command_offset $((i + 1))
			elif ((COMP_CWORD == i + 1)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			fi
			return 0
		fi
	done

	opts=$("$kmt" "$cmd" --list-opts 2>/dev/null) || return 0
	((COMP_CWORD > 1)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# --opt=value: bash splits it at '=' (COMP_WORDBREAKS)
	if [[ $cur == = ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 2)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	argh=$(while read -r o a; do
		[[ $o == "$prev" ]] && printf '%s\n' "$a"
	done <<<"$opts")
	if [[ -n $argh ]]; then
		values=$("$kmt" "$cmd" --list-values "$prev" 2>/dev/null)
		[[ -n $values ]] || return 0
		head=
		last=$cur
		if [[ $cur == *,* ]]; then
			head=${cur%,*},
			last=${cur##*,}
		fi
		if [[ $last == [+-]* ]]; then
			head=$head${last:0:1}
			last=${last:1}
		fi
		COMPREPLY=($(compgen -P "$head" -W "$values" -- "$last"))
		return 0
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(while read -r o a; do
			printf '%s\n' "$o"
		done <<<"$opts")" -- "$cur"))
	fi
	return 0
}
complete -o bashdefault -o default -F _kmemtrace kmemtrace
