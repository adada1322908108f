export const meta = {
  name: 'review',
  description: 'Review a change along several dimensions, then verify each finding independently',
  whenToUse: 'Before merging a change that touches several concerns',
  phases: [
    { title: 'Review', detail: 'one reviewer per dimension' },
    { title: 'Verify', detail: 'an independent verifier per finding' },
  ],
};

const dimensions = (args && args.dimensions) || ['correctness', 'security', 'tests'];

phase('Review');
const findings = await pipeline(
  dimensions,
  (prev, dim) => agent(`Review the change for ${dim}. Report the single most important finding.`, { label: `review:${dim}`, agentType: 'Explore' }),
  (review, dim, i) => ({ dimension: dim, index: i, review }),
);

phase('Verify');
const verdictSchema = {
  type: 'object',
  properties: { valid: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['valid', 'reason'],
  additionalProperties: false,
};
const verdicts = await parallel(findings.map((f) => () =>
  agent(`Check whether this ${f.dimension} finding holds: ${f.review}`, { label: `verify:${f.dimension}`, schema: verdictSchema })));

const held = verdicts.filter((v) => v && v.valid).length;
log(`${held} of ${verdicts.length} findings hold`);
return { held, findings: findings.map((f, i) => ({ ...f, verdict: verdicts[i] })) };
