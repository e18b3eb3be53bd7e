import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { buildSchema, type GraphQLInputObjectType } from "graphql";
import { describe, expect, it } from "vitest";

/**
 * The Linear double checks every query the SDK sends against Linear's published schema for the
 * pinned SDK version, committed beside this file. This fails when the pinned @linear/sdk and the
 * committed schema drift apart: bring the schema of the new version (schema-source.json says from where).
 */
const HERE = import.meta.dirname;
const source = JSON.parse(readFileSync(resolve(HERE, "schema-source.json"), "utf8")) as { sdk_version: string };
const pinned = (createRequire(import.meta.url)("@linear/sdk/package.json") as { version: string }).version;

describe("Linear's schema for the pinned SDK", () => {
  it("is the schema of the SDK version package.json pins", () => {
    expect(source.sdk_version).toBe(pinned);
  });

  it("parses, and lets a comment be created with an id chosen before the call (the lookup after a lost answer)", () => {
    const schema = buildSchema(readFileSync(resolve(HERE, "schema.graphql"), "utf8"));
    const input = schema.getType("CommentCreateInput") as GraphQLInputObjectType;
    expect(Object.keys(input.getFields())).toEqual(expect.arrayContaining(["id", "body", "issueId", "parentId"]));
    expect(schema.getMutationType()?.getFields().commentCreate).toBeDefined();
    expect(schema.getQueryType()?.getFields().comment).toBeDefined();
  });
});
