// The app's page refuses eval (its Content-Security-Policy: docs/security.md "The app's page"). zod probes for eval
// with `new Function` when it builds its first object schema, and parses without its compiled fast path when refused;
// the refusal is still a policy violation, reported as a `securitypolicyviolation` event and to any report endpoint
// a deployment adds. Told here, before any schema is built, zod never probes (docs/app.md "Start-up", SU17).
import { z } from "zod";

z.config({ jitless: true });
