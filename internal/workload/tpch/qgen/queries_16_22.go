package qgen

import (
	"strings"

	"tierbench/internal/engine"
)

// The query texts of Clause 2.4.16..2.4.22.

// q16 is the Parts/Supplier Relationship Query (Clause 2.4.16).
func q16(_ *engine.Dialect, p []string) string {
	return `select
	p_brand,
	p_type,
	p_size,
	count(distinct ps_suppkey) as supplier_cnt
from
	partsupp,
	part
where
	p_partkey = ps_partkey
	and p_brand <> '` + p[0] + `'
	and p_type not like '` + p[1] + `%'
	and p_size in (` + strings.Join(p[2:10], ", ") + `)
	and ps_suppkey not in (
		select
			s_suppkey
		from
			supplier
		where
			s_comment like '%Customer%Complaints%'
	)
group by
	p_brand,
	p_type,
	p_size
order by
	supplier_cnt desc,
	p_brand,
	p_type,
	p_size`
}

// q17 is the Small-Quantity-Order Revenue Query (Clause 2.4.17).
func q17(_ *engine.Dialect, p []string) string {
	return `select
	sum(l_extendedprice) / 7.0 as avg_yearly
from
	lineitem,
	part
where
	p_partkey = l_partkey
	and p_brand = '` + p[0] + `'
	and p_container = '` + p[1] + `'
	and l_quantity < (
		select
			0.2 * avg(l_quantity)
		from
			lineitem
		where
			l_partkey = p_partkey
	)`
}

// q18 is the Large Volume Customer Query (Clause 2.4.18); 100 rows.
func q18(_ *engine.Dialect, p []string) string {
	return `select
	c_name,
	c_custkey,
	o_orderkey,
	o_orderdate,
	o_totalprice,
	sum(l_quantity)
from
	customer,
	orders,
	lineitem
where
	o_orderkey in (
		select
			l_orderkey
		from
			lineitem
		group by
			l_orderkey having
				sum(l_quantity) > ` + p[0] + `
	)
	and c_custkey = o_custkey
	and o_orderkey = l_orderkey
group by
	c_name,
	c_custkey,
	o_orderkey,
	o_orderdate,
	o_totalprice
order by
	o_totalprice desc,
	o_orderdate
limit 100`
}

// q19 is the Discounted Revenue Query (Clause 2.4.19). The shipmode list
// 'AIR', 'AIR REG' is the spec's text.
func q19(_ *engine.Dialect, p []string) string {
	branch := func(brand, containers, quantity, maxSize string) string {
		return `(
		p_partkey = l_partkey
		and p_brand = '` + brand + `'
		and p_container in (` + containers + `)
		and l_quantity >= ` + quantity + ` and l_quantity <= ` + quantity + ` + 10
		and p_size between 1 and ` + maxSize + `
		and l_shipmode in ('AIR', 'AIR REG')
		and l_shipinstruct = 'DELIVER IN PERSON'
	)`
	}
	return `select
	sum(l_extendedprice* (1 - l_discount)) as revenue
from
	lineitem,
	part
where
	` + branch(p[0], "'SM CASE', 'SM BOX', 'SM PACK', 'SM PKG'", p[3], "5") + `
	or
	` + branch(p[1], "'MED BAG', 'MED BOX', 'MED PKG', 'MED PACK'", p[4], "10") + `
	or
	` + branch(p[2], "'LG CASE', 'LG BOX', 'LG PACK', 'LG PKG'", p[5], "15")
}

// q20 is the Potential Part Promotion Query (Clause 2.4.20).
func q20(d *engine.Dialect, p []string) string {
	return `select
	s_name,
	s_address
from
	supplier,
	nation
where
	s_suppkey in (
		select
			ps_suppkey
		from
			partsupp
		where
			ps_partkey in (
				select
					p_partkey
				from
					part
				where
					p_name like '` + p[0] + `%'
			)
			and ps_availqty > (
				select
					0.5 * sum(l_quantity)
				from
					lineitem
				where
					l_partkey = ps_partkey
					and l_suppkey = ps_suppkey
					and l_shipdate >= ` + d.DateLiteral(p[1]) + `
					and l_shipdate < ` + d.AddDate(p[1], "1", "year") + `
			)
	)
	and s_nationkey = n_nationkey
	and n_name = '` + p[2] + `'
order by
	s_name`
}

// q21 is the Suppliers Who Kept Orders Waiting Query (Clause 2.4.21); 100 rows.
func q21(_ *engine.Dialect, p []string) string {
	return `select
	s_name,
	count(*) as numwait
from
	supplier,
	lineitem l1,
	orders,
	nation
where
	s_suppkey = l1.l_suppkey
	and o_orderkey = l1.l_orderkey
	and o_orderstatus = 'F'
	and l1.l_receiptdate > l1.l_commitdate
	and exists (
		select
			*
		from
			lineitem l2
		where
			l2.l_orderkey = l1.l_orderkey
			and l2.l_suppkey <> l1.l_suppkey
	)
	and not exists (
		select
			*
		from
			lineitem l3
		where
			l3.l_orderkey = l1.l_orderkey
			and l3.l_suppkey <> l1.l_suppkey
			and l3.l_receiptdate > l3.l_commitdate
	)
	and s_nationkey = n_nationkey
	and n_name = '` + p[0] + `'
group by
	s_name
order by
	numwait desc,
	s_name
limit 100`
}

// q22 is the Global Sales Opportunity Query (Clause 2.4.22).
func q22(d *engine.Dialect, p []string) string {
	codes := "'" + strings.Join(p[:7], "', '") + "'"
	code := d.Substring("c_phone", 1, 2)
	return `select
	cntrycode,
	count(*) as numcust,
	sum(c_acctbal) as totacctbal
from
	(
		select
			` + code + ` as cntrycode,
			c_acctbal
		from
			customer
		where
			` + code + ` in (` + codes + `)
			and c_acctbal > (
				select
					avg(c_acctbal)
				from
					customer
				where
					c_acctbal > 0.00
					and ` + code + ` in (` + codes + `)
			)
			and not exists (
				select
					*
				from
					orders
				where
					o_custkey = c_custkey
			)
	) as custsale
group by
	cntrycode
order by
	cntrycode`
}
