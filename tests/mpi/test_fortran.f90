! A Fortran program (`use mpi`) through the shim: MPICH's bindings call the C MPI_* symbols,
! Open MPI's are intercepted at their Fortran names (preload/fortran.c).
! hc-test: np=1,2,4 preload=both timeout=120
! hc-test: np=4 preload=yes env=HIERCOLL_VIRTUAL_NODE_SIZE=2
program test_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i, root, bad
  integer, parameter :: n = 1000
  double precision :: x(n), y(n)
  integer :: iv(n)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  bad = 0
  do root = 0, nprocs - 1
    iv = -1
    if (rank == root) then
      do i = 1, n
        iv(i) = i * 3 + root
      end do
    end if
    call MPI_Bcast(iv, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    do i = 1, n
      if (iv(i) /= i * 3 + root) bad = bad + 1
    end do
  end do
  do i = 1, n
    x(i) = dble(i + rank)
  end do
  call MPI_Allreduce(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, n
    if (y(i) /= dble(nprocs * i + nprocs * (nprocs - 1) / 2)) bad = bad + 1
  end do
  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0)', 'fortran: wrong elements: ', bad
  call MPI_Finalize(ierr)
  if (bad /= 0) stop 1
end program test_fortran
