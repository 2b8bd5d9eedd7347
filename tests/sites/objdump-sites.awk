# SPDX-License-Identifier: MIT
# objdump-sites.awk: from `objdump -d -w --no-show-raw-insn`, every call
# (or tail jmp) of __cyg_profile_func_enter/exit: "addr hook call|tail
# this_fn", this_fn being the address objdump shows loaded into %rdi
# (lea with its <symbol>, mov $imm, *SLOT for a load from a GOT slot, or
# a copy of a register so loaded,
# followed linearly through the function), "?" when none, then "load" if
# loaded into %rdi itself, "copy" if copied from another register (whose
# value a join the linear walk does not see may change).
function reg64(r) {
	sub(/^%/, "", r)
	if (r in r32)
		return r32[r]
	if (r ~ /^r[0-9]+[dwb]$/)
		sub(/[dwb]$/, "", r)
	return r
}
function kill_caller_saved() {
	delete val["rax"]; delete val["rcx"]; delete val["rdx"]
	delete val["rsi"]; delete val["rdi"]; delete val["r8"]
	delete val["r9"]; delete val["r10"]; delete val["r11"]
}
BEGIN {
	split("eax ax al ebx bx bl ecx cx cl edx dx dl esi si sil edi di dil ebp bp bpl esp sp spl", a, " ")
	split("rax rax rax rbx rbx rbx rcx rcx rcx rdx rdx rdx rsi rsi rsi rdi rdi rdi rbp rbp rbp rsp rsp rsp", b, " ")
	for (i in a)
		r32[a[i]] = b[i]
}
# The PLT's stubs jump through the hooks' slots: not sites.
/^Disassembly of section / { plt = ($4 ~ /^\.plt/); next }
/^[0-9a-f]+ <.*>:$/ { delete val; next }
plt { next }
/^ *[0-9a-f]+:\t/ {
	addr = $1; sub(/:$/, "", addr)
	line = $0; sub(/^ *[0-9a-f]+:\t/, "", line)
	comment = ""
	if (index(line, "#")) {
		comment = substr(line, index(line, "#") + 1)
		line = substr(line, 1, index(line, "#") - 1)
	}
	n = split(line, tok, /[ \t]+/)
	k = 1
	while (k < n && tok[k] ~ /^(bnd|notrack|rex(\..*)?|data16|addr32|cs|ds|lock|rep|repz|repnz)$/)
		k++
	mn = tok[k]
	ops = ""
	for (j = k + 1; j <= n; j++)
		ops = ops tok[j]
	if (mn ~ /^(call|jmp)/ && line comment ~ /<__cyg_profile_func_(enter|exit)(@[A-Za-z]*)?>/) {
		hook = (line comment ~ /func_enter/) ? "enter" : "exit"
		print addr, hook, (mn ~ /^call/ ? "call" : "tail"), ("rdi" in val ? val["rdi"] : "?"), \
		    ("rdi" in val ? how["rdi"] : "-")
	}
	if (mn ~ /^call/) {
		kill_caller_saved()
		next
	}
	m = split(ops, op, ",")
	dst = m > 0 ? op[m] : ""
	if (mn ~ /^lea/ && ops ~ /\(%rip\),%/ && comment ~ /^ *[0-9a-f]+/) {
		c = comment; sub(/^ */, "", c); sub(/ .*/, "", c)
		val[reg64(dst)] = c; how[reg64(dst)] = "load"
		next
	}
	if (mn ~ /^mov[q]?$/ && m == 2 && op[1] ~ /\(%rip\)$/ && dst ~ /^%r/ && dst !~ /[dwb]$/ && \
	    comment ~ /^ *[0-9a-f]+ </) {
		c = comment; sub(/^ */, "", c); sub(/ .*/, "", c)
		val[reg64(dst)] = "*" c; how[reg64(dst)] = "load"
		next
	}
	if (mn ~ /^mov[lq]?$/ && m == 2 && op[1] ~ /^\$0x[0-9a-f]+$/ && dst ~ /^%/ && dst !~ /^%([a-d]x|[sd]i|[bs]p|r[0-9]+w)$/ || \
	    mn ~ /^movabs$/ && op[1] ~ /^\$0x/) {
		c = op[1]; sub(/^\$0x0*/, "", c)
		if (c == "") c = "0"
		val[reg64(dst)] = c; how[reg64(dst)] = "load"
		next
	}
	if (mn ~ /^mov[lq]?$/ && m == 2 && op[1] ~ /^%[a-z0-9]+$/ && dst ~ /^%[a-z0-9]+$/ && \
	    dst !~ /^%([a-d]x|[sd]i|[bs]p|[a-d]l|[sd]il|[bs]pl|r[0-9]+[wb])$/) {
		s = reg64(op[1]); d = reg64(dst)
		if (s in val) { val[d] = val[s]; how[d] = "copy" } else delete val[d]
		next
	}
	if (dst ~ /^%[a-z0-9]+$/)
		delete val[reg64(dst)]
	if (mn ~ /^(xchg|xadd|cmpxchg)/ && op[1] ~ /^%/)
		delete val[reg64(op[1])]
	if (mn ~ /^(mul|imul|div|idiv|cqto|cltd|cltq|cwtl|rdtsc|cpuid|syscall)/ || m == 0) {
		delete val["rax"]; delete val["rdx"]; delete val["rcx"]
	}
	if (mn ~ /^(cpuid|leave|enter)/) { delete val["rbx"]; delete val["rbp"] }
	if (mn ~ /^(rep|stos|movs|lods|scas|cmps)/) {
		delete val["rcx"]; delete val["rsi"]; delete val["rdi"]
	}
}
