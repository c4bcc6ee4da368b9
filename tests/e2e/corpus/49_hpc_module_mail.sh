#!/bin/bash
#SBATCH --job-name=gromacs-md
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=8
#SBATCH --cpus-per-task=2
#SBATCH --time=0-04:00:00
#SBATCH --partition=cpu
#SBATCH --mail-type=END
#SBATCH --mail-user=carol@example.com
#SBATCH --output=md_%j.out
#SBATCH --error=md_%j.err
# corpus-file: md_@JOB@.out
# corpus-expect: ^CORPUS-OK gromacs ranks=8 omp=2$
# corpus-mail: carol@example\.com
# corpus-mail: Job_id=@JOB@ .*Ended

# Environment modules may not exist where this is tested.
type module >/dev/null 2>&1 || module() { echo "module $*: not available" >&2; }
module load gromacs/2023.2

export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
# srun gmx_mpi mdrun -deffnm md -ntomp $OMP_NUM_THREADS
ranks=$(srun bash -c 'echo $SLURM_PROCID' | wc -l)
echo "CORPUS-OK gromacs ranks=$ranks omp=$OMP_NUM_THREADS"
