package tpcc
