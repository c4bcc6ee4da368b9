#!/bin/bash
#SBATCH -N 2
#SBATCH -n 8
#SBATCH -t 00:10:00
#SBATCH -J hello-mpi
#SBATCH -o hello-mpi.%j.out
# corpus-file: hello-mpi.@JOB@.out
# corpus-lines: 8
# corpus-expect: ^CORPUS-OK mpi rank=0 size=8
# corpus-expect: ^CORPUS-OK mpi rank=7 size=8

# mpicc -o prog hello.c  (a shell stand-in for the compiled program)
cat > prog <<'PROG'
#!/bin/sh
echo "CORPUS-OK mpi rank=$SLURM_PROCID size=$SLURM_NTASKS host=$(hostname)"
PROG
chmod +x prog
srun -n 8 ./prog
