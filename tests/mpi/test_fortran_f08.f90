! A `use mpi_f08` program through the shim (ierror left out where mpi_f08 allows it): broadcasts
! from every root, allreduce into a separate buffer and in place, and the ring of
! test_prof_fortran.f90, each result checked. The library intercepts what the vendor's mpi_f08
! does not route through the C MPI_* symbols (preload/fortran.c): everything under Open MPI,
! the calls without a buffer (MPI_Init, MPI_Wait, ...) under MPICH.
! tests/e2e/prof_matrix.sh checks its profile: the ring's matrix, and every collective counted.
! hc-test: np=1,3 preload=both timeout=120
! hc-test: np=4 preload=yes env=HIERCOLL_VIRTUAL_NODE_SIZE=2
program test_fortran_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 1000, rounds = 5
  integer :: rank, nprocs, i, root, bad, k, cnt, next, prev, ierr
  integer :: iv(n), sbuf(1000), rbuf(1000)
  double precision :: x(n), y(n), d(3), e(3)
  type(MPI_Request) :: req
  type(MPI_Status) :: st

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  bad = 0
  do root = 0, nprocs - 1
    iv = -1
    if (rank == root) iv = [(i * 3 + root, i = 1, n)]
    call MPI_Bcast(iv, n, MPI_INTEGER, root, MPI_COMM_WORLD)
    do i = 1, n
      if (iv(i) /= i * 3 + root) bad = bad + 1
    end do
  end do
  x = [(dble(i + rank), i = 1, n)]
  call MPI_Allreduce(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) bad = bad + 1
  do i = 1, n
    if (y(i) /= dble(nprocs * i + nprocs * (nprocs - 1) / 2)) bad = bad + 1
  end do
  call MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
  do i = 1, n
    if (x(i) /= dble(i + nprocs - 1)) bad = bad + 1
  end do
  ! the ring: rank r sends (r+1)*10 integers to r+1, then 3 doubles to r-1
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  do k = 1, rounds
    sbuf = rank * 100 + k
    cnt = (prev + 1) * 10
    call MPI_Isend(sbuf, (rank + 1) * 10, MPI_INTEGER, next, k, MPI_COMM_WORLD, req)
    call MPI_Recv(rbuf, cnt, MPI_INTEGER, prev, k, MPI_COMM_WORLD, st)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    if (rbuf(cnt) /= prev * 100 + k .or. st%MPI_SOURCE /= prev) bad = bad + 1
  end do
  d = 1.5d0
  call MPI_Irecv(e, 3, MPI_DOUBLE_PRECISION, next, 99, MPI_COMM_WORLD, req)
  call MPI_Ssend(d, 3, MPI_DOUBLE_PRECISION, prev, 99, MPI_COMM_WORLD)
  call MPI_Wait(req, st)
  if (e(3) /= 1.5d0) bad = bad + 1
  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0)', 'fortran f08: wrong elements: ', bad
  call MPI_Finalize()
  if (bad /= 0) stop 1
end program test_fortran_f08
