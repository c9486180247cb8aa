import { cpus, totalmem } from 'node:os';

export interface MachineInfo {
  cpu_model: string;
  cores: number;
  memory_gb: number;
  node_version: string;
  postgresql_version: string;
  date: string;
}

export function machineInfo(postgresqlVersion: string): MachineInfo {
  const list = cpus();
  return {
    cpu_model: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node_version: process.version,
    postgresql_version: postgresqlVersion,
    date: new Date().toISOString(),
  };
}
