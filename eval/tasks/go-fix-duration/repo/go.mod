module example.com/sched

go 1.22
