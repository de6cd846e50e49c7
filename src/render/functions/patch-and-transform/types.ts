/** The input of function-patch-and-transform (`pt.fn.crossplane.io/v1beta1 Resources`), as JSON. */

export interface Resources {
  apiVersion?: string;
  kind?: string;
  resources?: ComposedTemplate[];
  patchSets?: PatchSet[];
  environment?: { patches?: Patch[] };
  writeConnectionSecretToRef?: WriteConnectionSecretToRef;
}

export interface WriteConnectionSecretToRef {
  name?: string;
  namespace?: string;
  patches?: Patch[];
}

export interface ComposedTemplate {
  name?: string;
  base?: Record<string, unknown>;
  patches?: Patch[];
  connectionDetails?: ConnectionDetail[];
  readinessChecks?: ReadinessCheck[];
}

export interface PatchSet {
  name?: string;
  patches?: Patch[];
}

export interface Patch {
  type?: string;
  fromFieldPath?: string;
  toFieldPath?: string;
  combine?: Combine;
  patchSetName?: string;
  transforms?: Transform[];
  policy?: { fromFieldPath?: string; toFieldPath?: string };
}

export interface Combine {
  variables?: { fromFieldPath?: string }[];
  strategy?: string;
  string?: { fmt?: string };
}

export interface Transform {
  type?: string;
  math?: MathTransform;
  map?: Record<string, unknown>;
  match?: MatchTransform;
  string?: StringTransform;
  convert?: ConvertTransform;
}

export interface MathTransform {
  type?: string;
  multiply?: number;
  clampMin?: number;
  clampMax?: number;
}

export interface MatchTransform {
  patterns?: MatchPattern[];
  fallbackValue?: unknown;
  fallbackTo?: string;
}

export interface MatchPattern {
  type?: string;
  literal?: string;
  regexp?: string;
  result?: unknown;
}

export interface StringTransform {
  type?: string;
  fmt?: string;
  convert?: string;
  trim?: string;
  regexp?: { match?: string; group?: number };
  join?: { separator?: string };
  replace?: { search?: string; replace?: string };
}

export interface ConvertTransform {
  toType?: string;
  format?: string;
}

export interface ConnectionDetail {
  name?: string;
  type?: string;
  fromConnectionSecretKey?: string;
  fromFieldPath?: string;
  value?: string;
}

export interface ReadinessCheck {
  type: string;
  fieldPath?: string;
  matchString?: string;
  matchInteger?: number;
  matchCondition?: { type?: string; status?: string };
}
