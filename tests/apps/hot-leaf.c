/* SPDX-License-Identifier: MIT */
/*
 * hot-leaf.c - the small functions hot-main.c calls most (tests/integration/hot.sh):
 * every function of this file is one rbmon hot suggests excluding.
 */
int leaf_add(int a, int b);
int leaf_mul(int a, int b);

int leaf_add(int a, int b)
{
	return a + b;
}

int leaf_mul(int a, int b)
{
	return a * b;
}
