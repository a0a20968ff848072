import { z } from "zod";

export const hostIdentitySchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  kind: z.enum(["workstation", "cloud"]),
});
