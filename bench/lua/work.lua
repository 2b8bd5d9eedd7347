-- SPDX-License-Identifier: MIT
-- bench/lua/work.lua - a call-heavy Lua workload for bench/record.sh:
-- recursive fib (function calls), binary trees (tables and the garbage
-- collector), string work (format, concat, patterns, gsub), a sort with
-- a Lua comparison function.
--
-- usage: lua work.lua [SCALE]	(SCALE 1..1000, default 25: about 0.5 s
-- uninstrumented on a 2-core VM; the work grows linearly with it)
-- Prints one line, "work SCALE checksum N", N the same for every build.

local scale = tonumber(arg and arg[1]) or 25
if scale < 1 or scale > 1000 or scale ~= math.floor(scale) then
	io.stderr:write("usage: lua work.lua [SCALE], SCALE 1..100\n")
	os.exit(2)
end

local function fib(n)
	if n < 2 then return n end
	return fib(n - 1) + fib(n - 2)
end

local function tree(d)
	if d == 0 then return {} end
	d = d - 1
	return { tree(d), tree(d) }
end

local function check(t)
	if t[1] then return 1 + check(t[1]) + check(t[2]) end
	return 1
end

local function strings(n)
	local parts = {}
	for i = 1, n do
		parts[#parts + 1] = string.format("%d:%s", i, ("x"):rep(i % 7))
	end
	local s = table.concat(parts, ",")
	local c = 0
	for w in s:gmatch("%d+") do c = c + #w end
	local u, k = s:gsub("x+", string.upper)
	return c + k + #u:lower()
end

local function sorted(n)
	local t, seed = {}, 42
	for i = 1, n do
		seed = (seed * 1103515245 + 12345) % 2147483648
		t[i] = { key = seed % 100000, name = "k" .. seed }
	end
	table.sort(t, function(a, b)
		if a.key ~= b.key then return a.key < b.key end
		return a.name < b.name
	end)
	return t[1].key + t[n].key
end

local sum = 0
for _ = 1, scale do
	sum = sum + fib(22)
	sum = sum + check(tree(13))
	sum = sum + strings(5000)
	sum = sum + sorted(5000)
end
print(string.format("work %d checksum %d", scale, sum))
