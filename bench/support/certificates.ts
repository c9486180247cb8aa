import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsFiles {
  dir: string;
  caFile: string;
  keyFile: string;
  certFile: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * A throwaway CA and a server certificate it signs for 127.0.0.1/localhost (openssl CLI). The
 * dispatcher trusts the CA through NODE_EXTRA_CA_CERTS, as a customer's private CA would be.
 */
export function makeTestCertificates(): TlsFiles {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tls-'));
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...curve, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=coldchain bench CA'], dir);
  openssl(['req', ...curve, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext'], dir);
  return { dir, caFile: join(dir, 'ca.pem'), keyFile: join(dir, 'server.key'), certFile: join(dir, 'server.pem') };
}

export function removeCertificates(files: TlsFiles): void {
  rmSync(files.dir, { recursive: true, force: true });
}
