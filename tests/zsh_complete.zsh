# zsh_complete.zsh COMPLETIONS_DIR LINE [DUMP]: prints, one per line, the
# matches that completing LINE (TAB at its end) offers in an interactive zsh
# whose fpath starts with COMPLETIONS_DIR. DUMP, when given, is compinit's
# dump file, made on the first run and reused after (it saves half a second
# a run). Used by completion_test.sh; needs the zsh/zpty module.
# Run it as: zsh -f zsh_complete.zsh DIR LINE [DUMP]
emulate -L zsh
zmodload zsh/zpty || exit 2

local dir=$1 line=$2 dump=$3 out
zpty dtkz zsh -f -i
# The inner shell: no prompt, compinit, and a compadd that reports, before
# adding them, the words that match what is on the line. TAB completes;
# after the completion the shell exits. (The markers are split in two
# where they are typed, so that the echo of the input never matches.)
zpty -w dtkz "PS1= PROMPT= RPROMPT=; fpath=(${(q)dir} \$fpath)"
if [[ -n $dump ]]; then
  zpty -w dtkz "autoload -Uz compinit && compinit -u -C -d ${(q)dump}"
else
  zpty -w dtkz 'autoload -Uz compinit && compinit -u -D'
fi
zpty -w dtkz 'compadd() {
  local -a __dtk_m
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  builtin compadd -O __dtk_m "$@"
  (( $#__dtk_m )) && print -rl -- "@@""match "${^__dtk_m} >/dev/tty
  builtin compadd "$@"
}'
zpty -w dtkz '__dtk_done() { print -r -- "@@""done" >/dev/tty; exit; }'
zpty -w dtkz 'comppostfuncs=(__dtk_done); bindkey "^I" complete-word'
zpty -w dtkz 'zstyle ":completion:*" insert-tab false'
zpty -w -n dtkz "$line"$'\t'
while zpty -r dtkz out; do
  out=${out%$'\r'}
  out=${out%$'\n'}
  out=${out%$'\r'}
  [[ $out == *@@done* ]] && break
  [[ $out == *@@match\ * ]] && print -r -- ${out##*@@match }
done
zpty -d dtkz
