module example.com/num

go 1.22
