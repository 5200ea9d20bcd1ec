package qgen

import (
	"strconv"

	"tierbench/internal/engine"
)

// The query texts of Clause 2.4.8..2.4.15.

// q8 is the National Market Share Query (Clause 2.4.8).
func q8(d *engine.Dialect, p []string) string {
	return `select
	o_year,
	sum(case
		when nation = '` + p[0] + `' then volume
		else 0
	end) / sum(volume) as mkt_share
from
	(
		select
			` + d.Year("o_orderdate") + ` as o_year,
			l_extendedprice * (1 - l_discount) as volume,
			n2.n_name as nation
		from
			part,
			supplier,
			lineitem,
			orders,
			customer,
			nation n1,
			nation n2,
			region
		where
			p_partkey = l_partkey
			and s_suppkey = l_suppkey
			and l_orderkey = o_orderkey
			and o_custkey = c_custkey
			and c_nationkey = n1.n_nationkey
			and n1.n_regionkey = r_regionkey
			and r_name = '` + p[1] + `'
			and s_nationkey = n2.n_nationkey
			and o_orderdate between ` + d.DateLiteral("1995-01-01") + ` and ` + d.DateLiteral("1996-12-31") + `
			and p_type = '` + p[2] + `'
	) as all_nations
group by
	o_year
order by
	o_year`
}

// q9 is the Product Type Profit Measure Query (Clause 2.4.9).
func q9(d *engine.Dialect, p []string) string {
	return `select
	nation,
	o_year,
	sum(amount) as sum_profit
from
	(
		select
			n_name as nation,
			` + d.Year("o_orderdate") + ` as o_year,
			l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
		from
			part,
			supplier,
			lineitem,
			partsupp,
			orders,
			nation
		where
			s_suppkey = l_suppkey
			and ps_suppkey = l_suppkey
			and ps_partkey = l_partkey
			and p_partkey = l_partkey
			and o_orderkey = l_orderkey
			and s_nationkey = n_nationkey
			and p_name like '%` + p[0] + `%'
	) as profit
group by
	nation,
	o_year
order by
	nation,
	o_year desc`
}

// q10 is the Returned Item Reporting Query (Clause 2.4.10); 20 rows.
func q10(d *engine.Dialect, p []string) string {
	return `select
	c_custkey,
	c_name,
	sum(l_extendedprice * (1 - l_discount)) as revenue,
	c_acctbal,
	n_name,
	c_address,
	c_phone,
	c_comment
from
	customer,
	orders,
	lineitem,
	nation
where
	c_custkey = o_custkey
	and l_orderkey = o_orderkey
	and o_orderdate >= ` + d.DateLiteral(p[0]) + `
	and o_orderdate < ` + d.AddDate(p[0], "3", "month") + `
	and l_returnflag = 'R'
	and c_nationkey = n_nationkey
group by
	c_custkey,
	c_name,
	c_acctbal,
	c_phone,
	n_name,
	c_address,
	c_comment
order by
	revenue desc
limit 20`
}

// q11 is the Important Stock Identification Query (Clause 2.4.11); p[1] is
// FRACTION, already divided by SF.
func q11(_ *engine.Dialect, p []string) string {
	return `select
	ps_partkey,
	sum(ps_supplycost * ps_availqty) as value
from
	partsupp,
	supplier,
	nation
where
	ps_suppkey = s_suppkey
	and s_nationkey = n_nationkey
	and n_name = '` + p[0] + `'
group by
	ps_partkey having
		sum(ps_supplycost * ps_availqty) > (
			select
				sum(ps_supplycost * ps_availqty) * ` + p[1] + `
			from
				partsupp,
				supplier,
				nation
			where
				ps_suppkey = s_suppkey
				and s_nationkey = n_nationkey
				and n_name = '` + p[0] + `'
		)
order by
	value desc`
}

// q12 is the Shipping Modes and Order Priority Query (Clause 2.4.12).
func q12(d *engine.Dialect, p []string) string {
	return `select
	l_shipmode,
	sum(case
		when o_orderpriority = '1-URGENT'
			or o_orderpriority = '2-HIGH'
			then 1
		else 0
	end) as high_line_count,
	sum(case
		when o_orderpriority <> '1-URGENT'
			and o_orderpriority <> '2-HIGH'
			then 1
		else 0
	end) as low_line_count
from
	orders,
	lineitem
where
	o_orderkey = l_orderkey
	and l_shipmode in ('` + p[0] + `', '` + p[1] + `')
	and l_commitdate < l_receiptdate
	and l_shipdate < l_commitdate
	and l_receiptdate >= ` + d.DateLiteral(p[2]) + `
	and l_receiptdate < ` + d.AddDate(p[2], "1", "year") + `
group by
	l_shipmode
order by
	l_shipmode`
}

// q13 is the Customer Distribution Query (Clause 2.4.13). Engines without
// derived column lists name the count with a column alias instead.
func q13(d *engine.Dialect, p []string) string {
	count, alias := "count(o_orderkey) as c_count", "c_orders"
	if d.DerivedColumnList {
		count, alias = "count(o_orderkey)", "c_orders (c_custkey, c_count)"
	}
	return `select
	c_count,
	count(*) as custdist
from
	(
		select
			c_custkey,
			` + count + `
		from
			customer left outer join orders on
				c_custkey = o_custkey
				and o_comment not like '%` + p[0] + `%` + p[1] + `%'
		group by
			c_custkey
	) as ` + alias + `
group by
	c_count
order by
	custdist desc,
	c_count desc`
}

// q14 is the Promotion Effect Query (Clause 2.4.14).
func q14(d *engine.Dialect, p []string) string {
	return `select
	100.00 * sum(case
		when p_type like 'PROMO%'
			then l_extendedprice * (1 - l_discount)
		else 0
	end) / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from
	lineitem,
	part
where
	l_partkey = p_partkey
	and l_shipdate >= ` + d.DateLiteral(p[0]) + `
	and l_shipdate < ` + d.AddDate(p[0], "1", "month")
}

// q15 is the Top Supplier Query (Clause 2.4.15). Its view is named for the
// stream so that concurrent streams do not collide; creating and dropping it
// belongs to the query (Clause 5.3.2 timing includes it).
func q15(d *engine.Dialect, p []string, stream int) Query {
	view := "revenue" + strconv.Itoa(stream)
	create := `create view ` + view + ` (supplier_no, total_revenue) as
	select
		l_suppkey,
		sum(l_extendedprice * (1 - l_discount))
	from
		lineitem
	where
		l_shipdate >= ` + d.DateLiteral(p[0]) + `
		and l_shipdate < ` + d.AddDate(p[0], "3", "month") + `
	group by
		l_suppkey`
	sql := `select
	s_suppkey,
	s_name,
	s_address,
	s_phone,
	total_revenue
from
	supplier,
	` + view + `
where
	s_suppkey = supplier_no
	and total_revenue = (
		select
			max(total_revenue)
		from
			` + view + `
	)
order by
	s_suppkey`
	return Query{Number: 15, Setup: []string{create}, SQL: sql, Teardown: []string{"drop view " + view}}
}
