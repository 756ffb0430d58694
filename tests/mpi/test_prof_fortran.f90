! Profiler from Fortran: MPICH's bindings call the C MPI_* symbols, Open MPI's are intercepted at
! their Fortran names (preload/fortran.c), so the same wrappers count the traffic, and call
! sites skip the binding layer to land in this program.
! A ring: rank r sends (r+1)*10 integers to r+1, ROUNDS times (MPI_Isend, MPI_Recv, MPI_Wait),
! and one MPI_Ssend of 3 doubles to r-1. tests/e2e/prof_matrix.sh checks the matrix.
program test_prof_fortran
  use mpi
  implicit none
  integer, parameter :: rounds = 5
  integer :: ierr, rank, nprocs, next, prev, k, req, cnt, bad
  integer :: sbuf(1000), rbuf(1000)
  double precision :: d(3), e(3)
  integer :: st(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  bad = 0
  do k = 1, rounds
    sbuf = rank * 100 + k
    cnt = (prev + 1) * 10
    call MPI_Isend(sbuf, (rank + 1) * 10, MPI_INTEGER, next, k, MPI_COMM_WORLD, req, ierr)
    call MPI_Recv(rbuf, cnt, MPI_INTEGER, prev, k, MPI_COMM_WORLD, st, ierr)
    call MPI_Wait(req, st, ierr)
    if (rbuf(cnt) /= prev * 100 + k) bad = bad + 1
  end do
  d = 1.5d0
  call MPI_Irecv(e, 3, MPI_DOUBLE_PRECISION, next, 99, MPI_COMM_WORLD, req, ierr)
  call MPI_Ssend(d, 3, MPI_DOUBLE_PRECISION, prev, 99, MPI_COMM_WORLD, ierr)
  call MPI_Wait(req, st, ierr)
  if (e(3) /= 1.5d0) bad = bad + 1
  if (bad /= 0) then
    print *, 'rank', rank, ':', bad, 'wrong messages'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Finalize(ierr)
  if (rank == 0) print *, 'fortran ring done'
end program test_prof_fortran
