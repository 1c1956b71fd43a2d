// The session routes' path parameters live in the wire now, with their routes' contracts (client/wire/routes/params.ts).
export { messageParams, sessionParams } from "../../client/wire/routes/params.ts";
