package qgen

import (
	"fmt"
	"math"
	"strconv"

	"tierbench/internal/engine"
)

// The query texts of Clause 2.4.1..2.4.7 (functional query definitions). p holds
// the substitution parameters in the order of Params: p[0] is the template's :1.

// q1 is the Pricing Summary Report Query (Clause 2.4.1).
func q1(d *engine.Dialect, p []string) string {
	return `select
	l_returnflag,
	l_linestatus,
	sum(l_quantity) as sum_qty,
	sum(l_extendedprice) as sum_base_price,
	sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
	sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
	avg(l_quantity) as avg_qty,
	avg(l_extendedprice) as avg_price,
	avg(l_discount) as avg_disc,
	count(*) as count_order
from
	lineitem
where
	l_shipdate <= ` + d.AddDate("1998-12-01", "-"+p[0], "day") + `
group by
	l_returnflag,
	l_linestatus
order by
	l_returnflag,
	l_linestatus`
}

// q2 is the Minimum Cost Supplier Query (Clause 2.4.2); 100 rows.
func q2(d *engine.Dialect, p []string) string {
	return `select
	s_acctbal,
	s_name,
	n_name,
	p_partkey,
	p_mfgr,
	s_address,
	s_phone,
	s_comment
from
	part,
	supplier,
	partsupp,
	nation,
	region
where
	p_partkey = ps_partkey
	and s_suppkey = ps_suppkey
	and p_size = ` + p[0] + `
	and p_type like '%` + p[1] + `'
	and s_nationkey = n_nationkey
	and n_regionkey = r_regionkey
	and r_name = '` + p[2] + `'
	and ps_supplycost = (
		select
			min(ps_supplycost)
		from
			partsupp,
			supplier,
			nation,
			region
		where
			p_partkey = ps_partkey
			and s_suppkey = ps_suppkey
			and s_nationkey = n_nationkey
			and n_regionkey = r_regionkey
			and r_name = '` + p[2] + `'
	)
order by
	s_acctbal desc,
	n_name,
	s_name,
	p_partkey
limit 100`
}

// q3 is the Shipping Priority Query (Clause 2.4.3); 10 rows.
func q3(d *engine.Dialect, p []string) string {
	return `select
	l_orderkey,
	sum(l_extendedprice * (1 - l_discount)) as revenue,
	o_orderdate,
	o_shippriority
from
	customer,
	orders,
	lineitem
where
	c_mktsegment = '` + p[0] + `'
	and c_custkey = o_custkey
	and l_orderkey = o_orderkey
	and o_orderdate < ` + d.DateLiteral(p[1]) + `
	and l_shipdate > ` + d.DateLiteral(p[1]) + `
group by
	l_orderkey,
	o_orderdate,
	o_shippriority
order by
	revenue desc,
	o_orderdate
limit 10`
}

// q4 is the Order Priority Checking Query (Clause 2.4.4).
func q4(d *engine.Dialect, p []string) string {
	return `select
	o_orderpriority,
	count(*) as order_count
from
	orders
where
	o_orderdate >= ` + d.DateLiteral(p[0]) + `
	and o_orderdate < ` + d.AddDate(p[0], "3", "month") + `
	and exists (
		select
			*
		from
			lineitem
		where
			l_orderkey = o_orderkey
			and l_commitdate < l_receiptdate
	)
group by
	o_orderpriority
order by
	o_orderpriority`
}

// q5 is the Local Supplier Volume Query (Clause 2.4.5).
func q5(d *engine.Dialect, p []string) string {
	return `select
	n_name,
	sum(l_extendedprice * (1 - l_discount)) as revenue
from
	customer,
	orders,
	lineitem,
	supplier,
	nation,
	region
where
	c_custkey = o_custkey
	and l_orderkey = o_orderkey
	and l_suppkey = s_suppkey
	and c_nationkey = s_nationkey
	and s_nationkey = n_nationkey
	and n_regionkey = r_regionkey
	and r_name = '` + p[0] + `'
	and o_orderdate >= ` + d.DateLiteral(p[1]) + `
	and o_orderdate < ` + d.AddDate(p[1], "1", "year") + `
group by
	n_name
order by
	revenue desc`
}

// q6 is the Forecasting Revenue Change Query (Clause 2.4.6).
func q6(d *engine.Dialect, p []string) string {
	lo, hi := p[1]+" - 0.01", p[1]+" + 0.01"
	if d.RealDecimals {
		lo, hi = shiftHundredths(p[1], -1), shiftHundredths(p[1], 1)
	}
	return `select
	sum(l_extendedprice * l_discount) as revenue
from
	lineitem
where
	l_shipdate >= ` + d.DateLiteral(p[0]) + `
	and l_shipdate < ` + d.AddDate(p[0], "1", "year") + `
	and l_discount between ` + lo + ` and ` + hi + `
	and l_quantity < ` + p[2]
}

// shiftHundredths returns the decimal literal v + k/100 computed exactly, for
// engines that would evaluate "v + 0.01" in binary floating point and so miss
// the rows whose value is exactly the bound. v has at most two decimals.
func shiftHundredths(v string, k int) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		panic(fmt.Sprintf("qgen: Q6 discount %q is not a number", v))
	}
	h := int(math.Round(f*100)) + k
	return fmt.Sprintf("%d.%02d", h/100, h%100)
}

// q7 is the Volume Shipping Query (Clause 2.4.7).
func q7(d *engine.Dialect, p []string) string {
	return `select
	supp_nation,
	cust_nation,
	l_year,
	sum(volume) as revenue
from
	(
		select
			n1.n_name as supp_nation,
			n2.n_name as cust_nation,
			` + d.Year("l_shipdate") + ` as l_year,
			l_extendedprice * (1 - l_discount) as volume
		from
			supplier,
			lineitem,
			orders,
			customer,
			nation n1,
			nation n2
		where
			s_suppkey = l_suppkey
			and o_orderkey = l_orderkey
			and c_custkey = o_custkey
			and s_nationkey = n1.n_nationkey
			and c_nationkey = n2.n_nationkey
			and (
				(n1.n_name = '` + p[0] + `' and n2.n_name = '` + p[1] + `')
				or (n1.n_name = '` + p[1] + `' and n2.n_name = '` + p[0] + `')
			)
			and l_shipdate between ` + d.DateLiteral("1995-01-01") + ` and ` + d.DateLiteral("1996-12-31") + `
	) as shipping
group by
	supp_nation,
	cust_nation,
	l_year
order by
	supp_nation,
	cust_nation,
	l_year`
}
